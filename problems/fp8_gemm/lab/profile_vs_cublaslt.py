"""Issue 37: why cuBLASLt's FP8 GEMM leads the house kernel on the large shapes, read from Nsight Compute.

One call of the house kernel (solutions/house.py) and one of the library line (torch._scaled_mm, cuBLASLt) on the
same inputs of one shape, each after warm-up calls, between cudaProfilerStart and cudaProfilerStop, so that ncu
started with `--profile-from-start off` profiles those two calls' kernels only:

    ncu --profile-from-start off --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
        python problems/fp8_gemm/lab/profile_vs_cublaslt.py [shape=square_8192] [solution=PATH]

`solution=` (default problems/fp8_gemm/solutions/house.py, relative to the repository) profiles another file with
the house's interface in the house's place, e.g. the warp-specialised candidate lab/house_warp_specialized.py.

`--clock-control none`: ncu otherwise locks the GPU's clocks to base for the profile, and the lent machines'
clocks are not to be changed (and the scorer's times are at the clocks the GPU runs at). Without ncu around it
the script prints both calls' times (CUDA events, median of 20) as a sanity check.
"""

import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.problem import import_file  # noqa: E402
from scoring.spec import load_spec  # noqa: E402

PROBLEM = REPO / "problems" / "fp8_gemm"


def main(argv: list[str]) -> None:
    options = dict(arg.split("=", 1) for arg in argv)
    shape_name = options.get("shape", "square_8192")
    solution = REPO / options.get("solution", "problems/fp8_gemm/solutions/house.py")
    if not solution.is_file():
        raise SystemExit(f"profile_vs_cublaslt: solution={solution} is not a file (a path relative to {REPO})")
    spec = load_spec(PROBLEM)
    shapes = [s for s in spec.shapes_for("gpu").select("all", 0) if s.name == shape_name]
    if not shapes:
        raise SystemExit(f"profile_vs_cublaslt: no shape {shape_name!r} in {PROBLEM / 'problem.toml'}")
    params = dict(shapes[0].params)
    problem = import_file(PROBLEM / "problem.py", "fp8_problem")
    house = import_file(solution, "fp8_house")
    library = import_file(PROBLEM / "solutions" / "baselines" / "library.py", "fp8_library")
    device = torch.device("cuda")
    gen = torch.Generator(device=device).manual_seed(0)
    weights = problem.make_weights(params, gen, device)
    inputs = problem.make_inputs(params, weights, gen, device)
    states = {"house": house.prepare(**weights), "cuBLASLt": library.prepare(**weights)}
    calls = {
        "house": lambda: house.run(states["house"], **inputs),
        "cuBLASLt": lambda: library.run(states["cuBLASLt"], **inputs),
    }
    for name, call in calls.items():  # compile and warm up, and a time for each outside the profile
        for _ in range(3):
            call()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times_ms = []
        for _ in range(20):
            start.record()
            call()
            end.record()
            end.synchronize()
            times_ms.append(start.elapsed_time(end))
        median_ms = sorted(times_ms)[len(times_ms) // 2]
        tflops = problem.flops(params) / (median_ms * 1e-3) / 1e12
        print(f"{shape_name} {name}: median {median_ms:.4f} ms, {tflops:.0f} TFLOPS (L2 not flushed)")
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for call in calls.values():
        call()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main(sys.argv[1:])
