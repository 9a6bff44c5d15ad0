"""Time bench_cuda.py's candidates per shape with the scorer's own timer, and the host time of one call.

    python problems/w4a16_gemm/probe_scorer_timer.py --out $OUT/probe.json   (on the GPU)

triton's do_bench (bench_variants.py) flushes the L2 and records its start event with no launch pad, so a
call whose host side outlasts the flush is charged the difference: in round 10 the TMA kernels, whose
launches then cost 90-200 us of Python each, timed up to 2.4x slower than the same kernels under the
scorer's timer (measurements/tma_probe_h100.json). Here every call runs as the scorer runs it
(scoring.timing.GpuTimer: flush, 200 us pad, events; median of 40 calls), and the host time of a call is
measured apart (median of 15, with the GPU kept busy so that the launch never waits).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
import bench_cuda  # noqa: E402
from scoring.checking import compare  # noqa: E402
from scoring.hardware import detect  # noqa: E402
from scoring.problem import load_problem  # noqa: E402
from scoring.timing import GpuTimer  # noqa: E402

TIMED_CALLS, HOST_CALLS = 40, 15


def host_us(fn) -> float:
    samples = []
    for _ in range(HOST_CALLS):
        torch.cuda.synchronize()
        torch.cuda._sleep(2_000_000)  # the GPU stays busy, so the launch below never blocks
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(samples)


def scorer_us(timer: GpuTimer, fn) -> float:
    samples = []
    for _ in range(TIMED_CALLS):
        timer.before_call()
        samples.append(timer.time_call(fn)[1].device_ms * 1e3)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    device = torch.device("cuda")
    bench_cuda.SM_COUNT = torch.cuda.get_device_properties(device).multi_processor_count
    problem = load_problem(HERE)
    hw = detect("cuda", "bf16")
    peak_tflops, peak_gbps = hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps
    timer = GpuTimer(device, torch.cuda.get_device_properties(device).L2_cache_size)
    rows = []
    for shape in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out:
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(1)
        weights = problem.module.make_weights(p, gen, device)
        x = problem.module.make_inputs(p, weights, gen, device)["x"]
        ref = problem.module.reference(weights, {"x": x})
        house_state = bench_cuda.house.prepare(**weights)
        state = bench_cuda.prepare(**weights)
        roofline_us = max(problem.flops(p) / peak_tflops / 1e6, problem.bytes_moved(p) / peak_gbps / 1e3)
        for variant, cfg in bench_cuda.candidates(p["M"]):
            if variant == "house":
                fn = lambda: bench_cuda.house.run(house_state, x)  # noqa: E731
            else:
                fn = lambda cfg=cfg: bench_cuda.run_variant(state, x, variant, **cfg)  # noqa: E731
            name = bench_cuda.label(variant, cfg)
            passed = compare(fn(), ref, problem.spec.tolerance).passed
            row = dict(shape=shape.name, config=name, passed=passed, host_us=host_us(fn), scorer_us=scorer_us(timer, fn))
            row["fraction"] = roofline_us / row["scorer_us"]
            rows.append(row)
            print(f"{shape.name:24} {name:46} {'ok' if passed else 'FAIL'} host {row['host_us']:6.1f} us  "
                  f"{row['scorer_us']:6.1f} us  frac {row['fraction']:.3f}", flush=True)
    record = {"hardware": hw.as_dict(), "torch": torch.__version__, "timer": timer.describe(),
              "command": " ".join(sys.argv), "rows": rows}
    Path(args.out).write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
