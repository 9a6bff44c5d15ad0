"""Host time of one house call and of its parts (decode_m16_70b_down's launch plan), on the GPU machine.

    python problems/w4a16_gemm/host_breakdown.py

Median and p90 of 200 calls each; the GPU is kept busy (a sleep kernel every 20 calls) so that no launch
waits for the device. The scorer's timer hides up to 200 us of host time per call (its launch pad).
"""

import statistics
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from scoring.problem import import_file, load_problem  # noqa: E402

CALLS, CALLS_PER_SLEEP = 200, 20


def report(label: str, fn) -> None:
    samples = []
    for i in range(CALLS):
        if i % CALLS_PER_SLEEP == 0:
            torch.cuda.synchronize()
            torch.cuda._sleep(20_000_000)
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e6)
    torch.cuda.synchronize()
    print(f"{label:32} median {statistics.median(samples):7.1f} us  p90 {statistics.quantiles(samples, n=10)[-1]:7.1f} us",
          flush=True)


def main() -> None:
    problem = load_problem(HERE)
    house = import_file(HERE / "solutions" / "house.py", "w4_house_host")
    device = torch.device("cuda")
    shape = {"M": 16, "N": 8192, "K": 28672}
    gen = torch.Generator(device=device).manual_seed(1)
    weights = problem.module.make_weights(shape, gen, device)
    x = problem.module.make_inputs(shape, weights, gen, device)["x"]
    state = house.prepare(**weights)
    house.run(state, x)  # builds the shape's launch plan
    torch.cuda.synchronize()
    plan = state["plans"][(shape["M"], shape["K"])]
    report("house.run (whole call)", lambda: house.run(state, x))
    report("plan.launch", lambda: plan.launch(x))
    report("torch.empty (the output)", lambda: torch.empty((16, 8192), dtype=torch.bfloat16, device=device))
    report("encode x's tensor map", lambda: plan._encode_x(x))
    report("current stream handle", lambda: torch.cuda.current_stream(device).cuda_stream)


if __name__ == "__main__":
    main()
