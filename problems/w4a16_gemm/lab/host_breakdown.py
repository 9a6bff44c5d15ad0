"""Host time of one house call and of its parts (decode_m16_70b_down's launch plan), on the GPU machine.

    python problems/w4a16_gemm/lab/host_breakdown.py

Each part is called through the scorer's timer (scoring.bench.time_calls, 200 calls): its launch gate holds
the GPU while the host queues the call, so no launch waits for the device, and the timer's launch time (the
host time from the start event to the call's return) is what is printed, median and p90. The gate keeps up
to 1 ms of host time per call out of the device timing (scoring/launch_gate.py). The launch time includes
recording the start event, a floor of ~20 us on an H100 (torch.empty's row, 2026-11-25), which the earlier
perf_counter loop of measurements/host_breakdown_h100.log did not count: compare parts within one run.
"""

import sys
from pathlib import Path

import torch

LAB = Path(__file__).resolve().parent
PROBLEM = LAB.parent
sys.path.insert(0, str(PROBLEM.parents[1]))
from scoring.bench import time_calls  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402

CALLS = 200


def report(label: str, fn, device: torch.device) -> None:
    stats = time_calls(fn, device=device, min_calls=CALLS, max_calls=CALLS)
    print(f"{label:32} median {stats.launch_median_ms * 1e3:7.1f} us  p90 {stats.launch_p90_ms * 1e3:7.1f} us",
          flush=True)


def main() -> None:
    problem = load_problem(PROBLEM)
    house = import_file(PROBLEM / "solutions" / "house.py", "w4_house_host")
    device = torch.device("cuda")
    shape = {"M": 16, "N": 8192, "K": 28672}
    gen = torch.Generator(device=device).manual_seed(1)
    weights = problem.module.make_weights(shape, gen, device)
    x = problem.module.make_inputs(shape, weights, gen, device)["x"]
    state = house.prepare(**weights)
    house.run(state, x)  # builds the shape's launch plan
    torch.cuda.synchronize()
    plan = state["plans"][(shape["M"], shape["K"])]
    report("house.run (whole call)", lambda: house.run(state, x), device)
    report("plan.launch", lambda: plan.launch(x), device)
    report("torch.empty (the output)", lambda: torch.empty((16, 8192), dtype=torch.bfloat16, device=device), device)
    report("encode x's tensor map", lambda: plan._encode_x(x), device)
    report("current stream handle", lambda: torch.cuda.current_stream(device).cuda_stream, device)


if __name__ == "__main__":
    main()
