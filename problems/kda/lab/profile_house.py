"""Issue 37: what bounds the house KDA kernel, read from Nsight Compute (and fla's chunk_kda beside it, optionally).

One call of the house (solutions/house.py, or `solution=` another file with its interface) on one shape, after
warm-up calls, between cudaProfilerStart and cudaProfilerStop, so that ncu started with `--profile-from-start off`
profiles that call's kernels only (the house's two: `_kda_intra`, `_kda_inter`):

    ncu --profile-from-start off --clock-control none --section SpeedOfLight --section Occupancy \
        --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis \
        python problems/kda/lab/profile_house.py [shape=b2_t16k_h32] [solution=PATH] [fla=1]

`fla=1` adds one call of the library line (fla's chunk_kda, solutions/baselines/library.py) inside the profiled
range when fla imports; its autotuning runs in the warm-up calls, outside the range (40-60 s a new shape).
`--clock-control none`: ncu otherwise locks the clocks to base, and the lent machines' clocks are not to be
changed. Without ncu around it the script prints each call's time (CUDA events, median of 10, L2 not flushed).
"""

import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.problem import import_file  # noqa: E402
from scoring.spec import load_spec  # noqa: E402

PROBLEM = REPO / "problems" / "kda"


def _median_ms(call, repeats: int = 10) -> float:
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times_ms = []
    for _ in range(repeats):
        start.record()
        call()
        end.record()
        end.synchronize()
        times_ms.append(start.elapsed_time(end))
    return sorted(times_ms)[len(times_ms) // 2]


def main(argv: list[str]) -> None:
    options = dict(arg.split("=", 1) for arg in argv)
    shape_name = options.get("shape", "b2_t16k_h32")
    solution = REPO / options.get("solution", "problems/kda/solutions/house.py")
    if not solution.is_file():
        raise SystemExit(f"profile_house: solution={solution} is not a file (a path relative to {REPO})")
    spec = load_spec(PROBLEM)
    shapes = [s for s in spec.shapes_for("gpu").select("all", 0) if s.name == shape_name]
    if not shapes:
        raise SystemExit(f"profile_house: no shape {shape_name!r} in {PROBLEM / 'problem.toml'}")
    params = dict(shapes[0].params)
    problem = import_file(PROBLEM / "problem.py", "kda_problem")
    device = torch.device("cuda")
    gen = torch.Generator(device=device).manual_seed(0)
    weights = problem.make_weights(params, gen, device)
    inputs = problem.make_inputs(params, weights, gen, device)
    lines = {"house": import_file(solution, "kda_house")}
    if options.get("fla") == "1":
        try:
            lines["fla"] = import_file(PROBLEM / "solutions" / "baselines" / "library.py", "kda_library")
        except ImportError as error:  # fla absent: the house alone, said so
            print(f"fla left out: {error}")
    calls = {}
    for name, module in lines.items():
        # As the scorer does: prepare(**weights) when the file has one, else the weights themselves.
        prepare = getattr(module, "prepare", None)
        state = prepare(**weights) if prepare else dict(weights)
        calls[name] = lambda module=module, state=state: module.run(state, **inputs)
    for name, call in calls.items():  # compile (and fla's autotuning) and warm up, then a time outside the profile
        for _ in range(3):
            call()
        print(f"{shape_name} {name}: median {_median_ms(call):.3f} ms (CUDA events, L2 not flushed)", flush=True)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for call in calls.values():
        call()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main(sys.argv[1:])
