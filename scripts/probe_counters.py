"""Probe: does scoring.counters.CounterReader read the tensor-pipe counters of one call in-process (H100)?

    python scripts/probe_counters.py

Runs itself twice as a child process: once plain, once with `--with-activity`, where
scoring.kernel_record.KernelRecorder is started first, as the scoring worker does, with kernel activity on
for every call (the worker turns it on for a drawn share of its calls). Each child
builds a CounterReader for the audit's metrics before torch initialises CUDA, then profiles three calls:

  bf16_matmul     a 4096^3 bf16 torch matmul            bf16 tensor ops = 2*4096^3, fp8 = 0
  fp8_scaled_mm   a 4096^3 torch._scaled_mm, bf16 out   fp8 tensor ops = 2*4096^3
  house_fp8_gemm  problems/fp8_gemm's house kernel at M=N=K=2048: fp8 tensor ops >= 2*2048^3

For each: the counters per range (kernel), their sums, the expected path's ops over the formula, the wall
time of the profiled call against event times of unprofiled calls before and after it, and whether the
profiled call's output equals an unprofiled call's bit for bit (kernel replay must restore memory). With the
activity record on, also the kernels it recorded for an unprofiled and for the profiled call. It prints a
summary of both children at the end and writes no file.
"""

import faulthandler
import json
import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SUMMARY_TAG = "PROBE_SUMMARY "
CHILD_TIMEOUT_S = 270  # two children inside the device's 600 s per command
GEMM_N = 4096
HOUSE_SHAPE = {"M": 2048, "N": 2048, "K": 2048}
# Expected-path ops over the formula: (low, high); None = no upper bound (the brief asks ">=" for the house).
TORCH_BOUNDS = (0.99, 1.01)
HOUSE_BOUNDS = (0.99, None)
MAX_OTHER_PATH_SHARE = 0.01  # tensor ops on another precision path, over the formula


def say(*parts) -> None:
    print(*parts, flush=True)


# -- child: one process, one mode ------------------------------------------------------------------------------------
def child(with_activity: bool) -> int:
    faulthandler.enable()  # a crash inside CUPTI still shows where Python was
    mode = "with-activity" if with_activity else "plain"
    summary = {"mode": mode, "cases": {}}
    recorder = None
    if with_activity:
        from scoring.kernel_record import KernelRecorder

        recorder = KernelRecorder()  # before CUDA is initialised, as in scoring.worker
        summary["activity"] = "on" if recorder.available else f"unavailable: {recorder.why_not}"
        say(f"activity record: {summary['activity']}")
        if not recorder.available:
            recorder = None
        else:  # the worker records kernel activity on a drawn share of its calls; here on every call
            recorder.kernel_activity(True)

    from scoring.audit import PRECISION_METRICS
    from scoring.counters import AUDIT_METRICS, CounterReader

    started = time.perf_counter()
    reader = CounterReader(AUDIT_METRICS)
    build_s = time.perf_counter() - started
    summary["reader"] = {"available": reader.available, "why_not": reader.why_not, "build_s": round(build_s, 3)}
    say(f"CounterReader: available={reader.available} build {build_s:.3f} s  why_not={reader.why_not}")
    say(f"  libcupti {reader.path}  version {reader.cupti_version}  chip {reader.chip}  passes {reader.passes}")
    say(f"  device support: {reader.device_support}  counter availability: {reader.counter_availability}")

    import torch

    try:
        torch.cuda.init()
        torch.ones(1, device="cuda").add_(1)
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 -- nothing to probe without CUDA: say so in the summary
        traceback.print_exc()
        summary["fatal"] = f"CUDA initialisation failed: {type(exc).__name__}: {exc}".splitlines()[0][:300]
        say(SUMMARY_TAG + json.dumps(summary))
        return 1
    say(f"torch {torch.__version__} cuda {torch.version.cuda} on {torch.cuda.get_device_name()}")

    labels = {metric: precision for precision, metric in PRECISION_METRICS.items()}
    labels.update(
        {
            "gpu__time_duration.sum": "time_us",
            "dram__bytes_read.sum": "dram_rd_MB",
            "dram__bytes_write.sum": "dram_wr_MB",
        }
    )
    cases = [
        ("bf16_matmul", _bf16_matmul, "bf16", TORCH_BOUNDS),
        ("fp8_scaled_mm", _fp8_scaled_mm, "fp8", TORCH_BOUNDS),
        ("house_fp8_gemm", _house_fp8_gemm, "fp8", HOUSE_BOUNDS),
    ]
    for name, make, expect, bounds in cases:
        say(f"\n== {mode}: {name} (expect {expect}) ==")
        try:
            fn, flops = make(torch)
            summary["cases"][name] = run_case(
                torch,
                reader,
                recorder,
                fn,
                PRECISION_METRICS[expect],
                flops,
                bounds,
                [PRECISION_METRICS[p] for p in PRECISION_METRICS if p != expect],
                labels,
            )
        except Exception as exc:  # noqa: BLE001 -- one case's failure must not hide the others
            traceback.print_exc()
            sys.stdout.flush()
            summary["cases"][name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}".splitlines()[0][:300]}
            say(f"  ERROR {summary['cases'][name]['error']}")
    reader.close()
    say(SUMMARY_TAG + json.dumps(summary))
    return 0


def _bf16_matmul(torch):
    a = torch.randn(GEMM_N, GEMM_N, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(GEMM_N, GEMM_N, device="cuda", dtype=torch.bfloat16)
    return (lambda: a @ b), 2 * GEMM_N**3


def _fp8_scaled_mm(torch):
    a = torch.randn(GEMM_N, GEMM_N, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(GEMM_N, GEMM_N, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as required
    one = torch.tensor(1.0, device="cuda")
    return (lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)), 2 * GEMM_N**3


def _house_fp8_gemm(torch):
    from scoring.problem import import_file, load_problem

    problem = load_problem(REPO / "problems" / "fp8_gemm")
    house = import_file(REPO / "problems" / "fp8_gemm" / "solutions" / "house.py", "house", folder_importable=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    weights = problem.module.make_weights(dict(HOUSE_SHAPE), gen, "cuda")
    inputs = problem.module.make_inputs(dict(HOUSE_SHAPE), weights, gen, "cuda")
    state = house.prepare(**weights) if hasattr(house, "prepare") else weights
    flops = 2 * HOUSE_SHAPE["M"] * HOUSE_SHAPE["N"] * HOUSE_SHAPE["K"]
    say(f"  problem.flops(shape) = {problem.flops(HOUSE_SHAPE)} (brief's 2*M*N*K = {flops})")
    return (lambda: house.run(state, **inputs)), flops


def _tensor(out):
    return out[0] if isinstance(out, tuple) else out


def _event_ms(torch, fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    out = fn()
    end.record()
    torch.cuda.synchronize()
    return out, start.elapsed_time(end)


def run_case(torch, reader, recorder, fn, expected_metric, flops, bounds, other_metrics, labels) -> dict:
    fn()  # warm-up outside every measurement: Triton compile, cuBLAS handles and heuristics
    torch.cuda.synchronize()
    window = recorder.now_ns() if recorder else None
    reference, unprofiled_ms = _event_ms(torch, fn)
    unprofiled_kernels = len(recorder.take((window, recorder.now_ns())).kernels) if recorder else None

    window = recorder.now_ns() if recorder else None
    started = time.perf_counter()
    out, ranges = reader.profile(fn)
    wall_s = time.perf_counter() - started
    torch.cuda.synchronize()
    profiled_kernels = len(recorder.take((window, recorder.now_ns())).kernels) if recorder else None
    why_not = reader.why_not
    _, after_ms = _event_ms(torch, fn)  # the profiler must be off again: no replay, no slowdown

    identical = bool(torch.equal(_tensor(out), _tensor(reference)))
    columns = list(reader.metrics)
    scale = {"gpu__time_duration.sum": 1e-3, "dram__bytes_read.sum": 1e-6, "dram__bytes_write.sum": 1e-6}
    say("  " + f"{'range':>6} " + " ".join(f"{labels.get(m, m)[:14]:>14}" for m in columns))
    for row in ranges:
        say("  " + f"{row['range'][:6]:>6} " + " ".join(f"{row[m] * scale.get(m, 1):14.6g}" for m in columns))
    sums = {m: sum(row[m] for row in ranges) for m in columns}
    if ranges:
        say("  " + f"{'sum':>6} " + " ".join(f"{sums[m] * scale.get(m, 1):14.6g}" for m in columns))
    ratio = sums.get(expected_metric, 0.0) / flops
    other_share = sum(sums.get(m, 0.0) for m in other_metrics) / flops
    low, high = bounds
    in_bounds = ratio >= low and (high is None or ratio <= high)
    ok = bool(ranges) and in_bounds and other_share <= MAX_OTHER_PATH_SHARE and identical
    counter_ms = sums.get("gpu__time_duration.sum", 0.0) / 1e6
    say(
        f"  ranges {len(ranges)}  {labels.get(expected_metric)} ops / formula {ratio:.6f} "
        f"(want >= {low}{'' if high is None else f', <= {high}'})  other paths / formula {other_share:.6f}"
    )
    say(
        f"  time: profiled call {wall_s:.3f} s wall; unprofiled {unprofiled_ms:.3f} ms before, {after_ms:.3f} ms "
        f"after (events); counter gpu__time_duration sum {counter_ms:.3f} ms"
    )
    say(f"  output of the profiled call identical to an unprofiled call: {identical}")
    if recorder:
        say(
            f"  activity record: {unprofiled_kernels} kernels for the unprofiled call, {profiled_kernels} for "
            "the profiled call"
        )
    say(f"  reader.why_not: {why_not}")
    say(f"  -> {'OK' if ok else 'NOT OK'}")
    return {
        "ok": ok,
        "ranges": len(ranges),
        "ratio": ratio,
        "other_share": other_share,
        "identical": identical,
        "profiled_wall_s": round(wall_s, 4),
        "unprofiled_ms": round(unprofiled_ms, 4),
        "unprofiled_after_ms": round(after_ms, 4),
        "counter_time_ms": round(counter_ms, 4),
        "activity_kernels": [unprofiled_kernels, profiled_kernels] if recorder else None,
        "why_not": why_not,
    }


# -- parent: both modes, then a summary ------------------------------------------------------------------------------
def run_child(extra: list[str]) -> tuple[dict | None, int | None]:
    command = [sys.executable, "-u", str(Path(__file__).resolve()), "--child", *extra]
    process = subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    timer = threading.Timer(CHILD_TIMEOUT_S, process.kill)  # this child only, by its own handle
    timer.start()
    summary = None
    try:
        for line in process.stdout:
            if line.startswith(SUMMARY_TAG):
                summary = json.loads(line[len(SUMMARY_TAG) :])
            else:
                print(line, end="", flush=True)
        returncode = process.wait()
    finally:
        timer.cancel()
    return summary, returncode


def main() -> int:
    if "--child" in sys.argv:
        return child("--with-activity" in sys.argv)
    results = {}
    for label, extra in (("plain", []), ("with-activity", ["--with-activity"])):
        say(f"\n######## child: {label} ########")
        started = time.perf_counter()
        summary, returncode = run_child(extra)
        say(f"######## child {label}: exit code {returncode} after {time.perf_counter() - started:.1f} s")
        results[label] = (summary, returncode)

    say("\n======== summary ========")
    names = ("bf16_matmul", "fp8_scaled_mm", "house_fp8_gemm")
    say(f"{'mode':<14} {'reader':<10} " + " ".join(f"{n:<34}" for n in names))
    all_ok = True
    for label, (summary, returncode) in results.items():
        if summary is None:
            all_ok = False
            say(f"{label:<14} child died (exit code {returncode}) before its summary: see its output above")
            continue
        if "fatal" in summary:
            all_ok = False
            say(f"{label:<14} {summary['fatal']}")
            continue
        reader = "built" if summary["reader"]["available"] else "NOT BUILT"
        cells = []
        for name in names:
            case = summary["cases"].get(name, {"ok": False, "error": "not run"})
            all_ok &= bool(case.get("ok"))
            if "error" in case:
                cells.append(f"ERROR {case['error'][:28]}")
            else:
                cells.append(
                    f"{'ok' if case['ok'] else 'NOT OK'} x{case['ratio']:.4f} n={case['ranges']} "
                    f"{'same' if case['identical'] else 'DIFFERS'} {case['profiled_wall_s']:.2f}s"
                )
        say(f"{label:<14} {reader:<10} " + " ".join(f"{c:<34}" for c in cells))
        if not summary["reader"]["available"]:
            say(f"{'':<14} reader why_not: {summary['reader']['why_not']}")
        for name in names:
            why = summary["cases"].get(name, {}).get("why_not")
            if why:
                say(f"{'':<14} {name} why_not: {why}")
    say(
        "\nRESULT: "
        + (
            "in-process counters work in both modes"
            if all_ok
            else "NOT all cases passed (see the table and the per-case output above)"
        )
    )
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
