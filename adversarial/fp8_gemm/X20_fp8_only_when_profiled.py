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

Defence that must catch it (GPU): the tensor_precision audit of a timed call, "X20: ... bf16 path",
run in a worker the solution cannot tell from the others. If the audit worker can still be recognised
from /proc/self/maps (the injected libraries of ncu) or the audited call from its stack, this case
passes and shows it; the cure is to make every worker and call look alike (the same libraries in every
worker, no per-call flag on the stack) or to read the counters in every worker. The CPU profile has no
counters.
"""

import importlib.util
from pathlib import Path

from _correct import correct
from _watch import audited_call_on_the_stack, profiled

EXPECTED = {
    "class": "X20",
    "cpu": {"not_exercised": "the CPU profile has no tensor-pipe counters and no profiler to tell apart"},
    "gpu": {"status": "integrity"},
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
