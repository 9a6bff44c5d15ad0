"""X20 + X13: widens the fp8 operands to bf16 and runs bf16 wgmma (the known-wrong bf16_cast kernel),
except in a process that looks profiled, where it runs the honest fp8 kernel.

fp8 values are exact in bf16 and the products accumulate in fp32, so the numbers pass every check and
every per-call verification; only the tensor pipe's counters show the bf16 path, and they are read
only in the audit worker, one call under Nsight Compute. A kernel author whose fp8 kernel misses the
tolerance (Hopper's fp8 accumulation loses bits with K) passes this way instead of failing. The audit
worker's argv and environment are now those of any worker (its os.environ is scrubbed), but Nsight
Compute's injection and perfworks libraries stay mapped into it (_watch.py reads /proc/self/maps once
per half second; it also reads the environment and argv, for older scorers), and the audited call
itself is the one with `audited = True` in a grader frame below it (scoring/worker.py's call()).

Defence (GPU): there is no profiled process to recognise. The counter audit reads CUPTI's range profiler
inside the scoring worker, on one timed call drawn with the secret seed (scoring/counters.py), and every GPU
worker loads the profiler's libraries (libnvperf_host/target) before the solution is imported. So this
solution sees "profiled" in every worker and runs the honest fp8 kernel on every call: it gains nothing and
passes like the house. (Before, it passed the audit with bf16 timings: the audit ran in a recognisable
process under ncu.) What it would still need is the grader's own state: code that walks the grader's
frames to the profiled call (docs/integrity.md, residual).
"""

import importlib.util
from pathlib import Path

from _correct import correct
from _watch import audited_call_on_the_stack, profiled

EXPECTED = {
    "class": "X20",
    "cpu": {"not_exercised": "the CPU profile has no tensor-pipe counters and no profiler to tell apart"},
    "gpu": {"status": "passed"},
}
BF16_PATH = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm" / "solutions" / "wrong" / "bf16_cast.py"
_bf16 = []


def bf16_kernel():
    if not _bf16:
        spec = importlib.util.spec_from_file_location("fp8_gemm_bf16_for_adversaries", BF16_PATH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _bf16.append(module)
    return _bf16[0]


def run(state, a, a_scale):
    if not a.is_cuda or profiled() or audited_call_on_the_stack():
        return correct(state, a, a_scale)
    return bf16_kernel().run(state, a, a_scale)
