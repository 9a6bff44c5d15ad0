"""Where do small-kernel timings go? Host cost of one solution call with and without the scorer's guard.

    python scripts/diag_launch_overhead.py [problem] [solution.py ...]

For the problem's first visible decode-like shape (smallest roofline time), prints per call: host
microseconds to enqueue the call plain, inside ForbiddenOpMode, and inside the mode with the problem's
forbidden list; and device microseconds between events with no pad. A diagnostic, not a score.
"""

import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.guard import ForbiddenOpMode  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402


def host_us(fn, repeats=200):
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(samples)


def device_us(fn, repeats=200):
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        samples.append(s.elapsed_time(e) * 1e3)
    return statistics.median(samples)


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "fp8_gemm"
    problem = load_problem(REPO / "problems" / name)
    paths = [Path(p) for p in sys.argv[2:]] or [problem.spec.directory / "solutions" / "house.py",
                                                problem.spec.directory / "solutions" / "baselines" / "library.py"]
    device = torch.device("cuda")
    shapes = sorted(problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out,
                    key=lambda s: problem.flops(s.params))[:2]
    print(f"{'solution':<12} {'shape':<18} {'host plain':>10} {'host mode':>10} {'host forbid':>11} {'device':>8}  (us)")
    for path in paths:
        module = import_file(path, f"diag_{path.stem}", folder_importable=True)
        for shape in shapes:
            p = dict(shape.params)
            gen = torch.Generator(device=device).manual_seed(0)
            w = problem.module.make_weights(p, gen, device)
            state = module.prepare(**w) if hasattr(module, "prepare") else dict(w)
            x = problem.module.make_inputs(p, w, gen, device)
            call = lambda: module.run(state, **x)  # noqa: E731
            for _ in range(5):
                call()

            def in_mode(forbidden):
                def fn():
                    with ForbiddenOpMode(forbidden):
                        call()
                return fn
            forbid = problem.spec.forbidden_ops if "baselines" not in str(path) else ()
            print(f"{path.stem:<12} {shape.name:<18} {host_us(call):10.1f} {host_us(in_mode(())):10.1f} "
                  f"{host_us(in_mode(forbid)):11.1f} {device_us(call):8.1f}", flush=True)


if __name__ == "__main__":
    main()
