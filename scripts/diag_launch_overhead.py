"""Host cost of one solution call with and without the scorer's forbidden-operator refusal.

    python scripts/diag_launch_overhead.py [problem ...]

For the two smallest visible/held-out shapes of each problem (all problems by default), prints per call of
the house kernel: host microseconds to enqueue the call plain, and with the problem's forbidden operators
refused at the dispatcher (scoring.guard.ForbiddenOps, as the worker installs it for the whole process);
and device microseconds between events with no pad. A diagnostic, not a score. (Session 3 measured the
Python dispatch mode this replaced at 70-260 us per call.)
"""

import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.guard import ForbiddenOps  # noqa: E402
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
    names = sys.argv[1:] or sorted(p.parent.name for p in (REPO / "problems").glob("*/problem.toml"))
    device = torch.device("cuda")
    print(f"{'problem':<16} {'shape':<20} {'host plain':>10} {'host refused':>12} {'device':>8}  (us)")
    for name in names:
        problem = load_problem(REPO / "problems" / name)
        path = problem.spec.directory / "solutions" / "house.py"
        module = import_file(path, f"diag_{name}", folder_importable=True)
        shapes = sorted(problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out,
                        key=lambda s: problem.flops(s.params))[:2]
        for shape in shapes:
            p = dict(shape.params)
            gen = torch.Generator(device=device).manual_seed(0)
            w = problem.module.make_weights(p, gen, device)
            state = module.prepare(**w) if hasattr(module, "prepare") else dict(w)
            x = problem.module.make_inputs(p, w, gen, device)
            call = lambda: module.run(state, **x)  # noqa: E731
            for _ in range(5):
                call()
            plain = host_us(call)
            guard = ForbiddenOps(problem.spec.forbidden_ops).install()
            try:
                refused = host_us(call)
            finally:
                guard.uninstall()
            print(f"{name:<16} {shape.name:<20} {plain:10.1f} {refused:12.1f} {device_us(call):8.1f}", flush=True)


if __name__ == "__main__":
    main()
