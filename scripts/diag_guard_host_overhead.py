"""Host cost per call of refusing the forbidden operators at the dispatcher, on a GPU (issue 15's 2 us target).

    python scripts/diag_guard_host_overhead.py [problem ...]

For the smallest visible/held-out shape of each problem (all problems by default), calls the house kernel
in one process with scoring.guard.ForbiddenOps installed and uninstalled in alternating blocks, the device
synchronised before every call, and reports the median host microseconds per call (perf_counter around
`run`, which returns once its launches are queued) with and without the refusal, and the median of the
paired block differences. Launch times drift between processes by tens of microseconds
(results/watch/h100_sxm/README.md), so only a same-process, interleaved comparison resolves a couple of
microseconds. A diagnostic, not a score.
"""

import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BLOCKS = 40  # per setting, alternating
CALLS_PER_BLOCK = 50
WARMUP_CALLS = 30


def block_median_us(call, torch) -> float:
    times = []
    for _ in range(CALLS_PER_BLOCK):
        torch.cuda.synchronize()
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1e6)
    return statistics.median(times)


def measure(name: str) -> dict:
    import torch

    from scoring.guard import ForbiddenOps
    from scoring.problem import import_file, load_problem

    device = torch.device("cuda", 0)
    problem = load_problem(REPO / "problems" / name)
    guard = ForbiddenOps(problem.spec.forbidden_ops)
    module = import_file(
        problem.spec.directory / "solutions" / "house.py", f"guard_diag_{name}", folder_importable=True
    )
    shape = min(
        problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out, key=lambda s: problem.flops(s.params)
    )
    params = dict(shape.params)
    gen = torch.Generator(device=device).manual_seed(0)
    weights = problem.module.make_weights(params, gen, device)
    inputs = problem.module.make_inputs(params, weights, gen, device)
    state = module.prepare(**weights) if hasattr(module, "prepare") else dict(weights)

    def call():
        return module.run(state, **inputs)

    for _ in range(WARMUP_CALLS):
        call()
    guarded, bare, differences = [], [], []
    for block in range(BLOCKS):
        order = (True, False) if block % 2 == 0 else (False, True)  # neither setting always goes first
        medians = {}
        for installed in order:
            if installed:
                guard.install()
            try:
                medians[installed] = block_median_us(call, torch)
            finally:
                if installed:
                    guard.uninstall()
        guarded.append(medians[True])
        bare.append(medians[False])
        differences.append(medians[True] - medians[False])
    return {
        "problem": name,
        "shape": shape.name,
        "forbidden_ops": len(problem.spec.forbidden_ops),
        "host_us_without": statistics.median(bare),
        "host_us_with": statistics.median(guarded),
        "paired_difference_us": statistics.median(differences),
        "difference_p10_p90_us": statistics.quantiles(differences, n=10)[::8],
    }


def main() -> None:
    names = sys.argv[1:] or sorted(p.name for p in (REPO / "problems").iterdir() if (p / "problem.toml").exists())
    header = f"{'problem':<16} {'shape':<26} {'ops':>4} {'without':>9} {'with':>9} {'paired diff (p10, p90)':>28}"
    print(header + "  (us/call)")
    for name in names:
        row = measure(name)
        low, high = row["difference_p10_p90_us"]
        print(
            f"{row['problem']:<16} {row['shape']:<26} {row['forbidden_ops']:>4} {row['host_us_without']:>9.1f} "
            f"{row['host_us_with']:>9.1f} {row['paired_difference_us']:>+10.2f} ({low:+.2f}, {high:+.2f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
