"""Probe of the timed-path watch on a GPU: what CUPTI's kernel record and an ncu parent cost, and whether
they work together. A diagnostic for issue 15's design, not a score.

    python scripts/probe_watch.py [--record] [--audit-call N] [--out FILE]

Times a short loop of small and medium kernels (an elementwise op, a Triton-compiled fp8 GEMM from the
fp8_gemm house, torch's cuBLAS bf16 matmul) with CUDA events, each call after an L2 flush and a launch pad
as the scorer does; with --record, CUPTI activity is on for the whole process and each call's kernels
are read back; with --audit-call N, call N of each loop is wrapped in the NVTX range an ncu parent
collects. Run it once plain and once under ncu to compare. Prints one JSON line per case.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.kernel_record import CallKernels, KernelRecorder  # noqa: E402  (before torch touches CUDA)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--audit-call", type=int, default=-1)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    recorder = KernelRecorder() if args.record else None
    import torch

    from scoring.problem import import_file, load_problem
    from scoring.timing import GpuTimer

    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    timer = GpuTimer(device, torch.cuda.get_device_properties(device).L2_cache_size)
    problem = load_problem(REPO / "problems" / "fp8_gemm")
    house = import_file(
        REPO / "problems" / "fp8_gemm" / "solutions" / "house.py", "probe_house", folder_importable=True
    )
    gen = torch.Generator(device=device).manual_seed(0)
    cases = {}
    for M, N, K in ((16, 8192, 8192), (4096, 4096, 4096)):
        shape = {"M": M, "N": N, "K": K}
        weights = problem.module.make_weights(shape, gen, device)
        inputs = problem.module.make_inputs(shape, weights, gen, device)
        cases[f"house_fp8_{M}x{N}x{K}"] = lambda w=weights, x=inputs: house.fp8_gemm(
            x["a"], w["b"], x["a_scale"], w["b_scale"]
        )
    small = torch.randn(1 << 16, device=device)
    cases["elementwise_64k"] = lambda: small * 2.0
    a16 = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
    cases["cublas_bf16_4096"] = lambda: a16 @ a16

    for name, fn in cases.items():
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        device_ms, host_ms, ratios, names = [], [], [], set()
        wall = time.perf_counter()
        for call in range(args.calls):
            timer.before_call()
            audited = call == args.audit_call
            if audited:
                torch.cuda.nvtx.range_push("ceiling_audit")
            start_ns = recorder.now_ns() if recorder and recorder.available else 0
            host_start = time.perf_counter()
            _, timing = timer.time_call(fn)
            host_ms.append((time.perf_counter() - host_start) * 1e3)
            if audited:
                torch.cuda.nvtx.range_pop()
                continue
            device_ms.append(timing.device_ms)
            if recorder and recorder.available:
                kernels: CallKernels = recorder.take((start_ns, recorder.now_ns()))
                names.update(k[0][:60] for k in kernels.kernels)
                ratios.append(kernels.busy_ms() / timing.device_ms)
        print(
            json.dumps(
                {
                    "label": args.label,
                    "case": name,
                    "record": bool(recorder),
                    "record_available": recorder.available if recorder else None,
                    "why_not": recorder.why_not if recorder else None,
                    "median_us": statistics.median(device_ms) * 1e3,
                    "p10_us": statistics.quantiles(device_ms, n=10)[0] * 1e3,
                    "host_median_us": statistics.median(host_ms) * 1e3,
                    "kernel_over_event_median": statistics.median(ratios) if ratios else None,
                    "kernel_names": sorted(names)[:4],
                    "dropped": recorder.dropped_records if recorder else None,
                    "loop_wall_s": time.perf_counter() - wall,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
