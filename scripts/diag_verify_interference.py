"""Does the grader's per-call verification change the timing of the next call? A diagnostic, not a score.

    python scripts/diag_verify_interference.py PROBLEM:SHAPE [PROBLEM:SHAPE ...]

Times the house kernel on one shape with the scorer's timer (L2 flush, launch gate, events), fresh inputs
every call, and between calls: nothing; the problem's verify_call in the grader's own memory pool (as the
worker does); verify_call in the default pool. The variants take turns call by call, so clock and thermal
drift fall on all of them alike. Prints the median device time of each.
"""

import contextlib
import statistics
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.problem import import_file, load_problem
from scoring.timing import GpuTimer

CALLS_PER_VARIANT = 150
VARIANTS = ("nothing", "verify_own_pool", "verify_default_pool")


def main() -> None:
    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    timer = GpuTimer(device, torch.cuda.get_device_properties(device).L2_cache_size)
    pool = torch.cuda.MemPool()
    print(f"{'problem:shape':<34} " + " ".join(f"{v:>20}" for v in VARIANTS) + "  (us, median)")
    for spec in sys.argv[1:]:
        name, shape_name = spec.split(":")
        problem = load_problem(REPO / "problems" / name)
        house = import_file(problem.spec.directory / "solutions" / "house.py", f"diag_{name}", folder_importable=True)
        shape = next(
            s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out if s.name == shape_name
        )
        params = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(0)
        weights = problem.module.make_weights(params, gen, device)
        state = house.prepare(**weights) if hasattr(house, "prepare") else dict(weights)
        times = {v: [] for v in VARIANTS}
        before = "nothing"  # what ran between the previous call and this one
        for index in range(20 + CALLS_PER_VARIANT * len(VARIANTS)):
            variant = VARIANTS[index % len(VARIANTS)]
            inputs = problem.module.make_inputs(params, weights, gen, device)
            timer.before_call()
            out, timing = timer.time_call(lambda h=house, s=state, x=inputs: h.run(s, **x))
            if variant != "nothing":
                memory = torch.cuda.use_mem_pool(pool) if variant == "verify_own_pool" else contextlib.nullcontext()
                with memory:
                    verdict = problem.module.verify_call(out, weights, inputs, gen, problem.spec.tolerance)
                assert verdict.passed, verdict
            torch.cuda.synchronize(device)
            if index >= 20:
                times[before].append(timing.device_ms)
            before = variant
        cells = [f"{statistics.median(times[v]) * 1e3:20.1f}" for v in VARIANTS]
        print(f"{spec:<34} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
