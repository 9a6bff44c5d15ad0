"""X20 + X13: widens the fp8 operands to bf16 and runs bf16 wgmma (the known-wrong bf16_cast kernel),
except in a process that looks profiled, where it runs the honest fp8 kernel.

fp8 values are exact in bf16 and the products accumulate in fp32, so the numbers pass every check and
every per-call verification; only the tensor pipe's counters show the bf16 path. A kernel author whose
fp8 kernel misses the tolerance (Hopper's fp8 accumulation loses bits with K) would pass this way
instead of failing. It looks for a profiler the way _watch.py does: an audit target's argv, profiler
variables in the environment (also as the process started), a profiler's or CUPTI's library mapped
since the import.

Defence (GPU): there is no profiled process to recognise. The counter audit reads CUPTI's range profiler
inside the scoring worker, on one timed call drawn with the secret seed (scoring/counters.py), and every
GPU worker loads the profiler's libraries before the solution is imported, so nothing appears, changes or
differs between calls: the bf16 path runs on the audited call too and the tensor_precision audit fails
it. (Before, it passed the audit with bf16 timings: the audit ran in a recognisable process under ncu.)
X13_other_kernels_on_the_audited_call.py reads the grader's own frames instead, which no in-process design
can hide; it is caught because its audited call launches other kernels than its timed calls, and
X20_residual_same_kernel_name_when_audited.py, which names both alike, is not (docs/integrity.md).
"""

from _bf16 import bf16_kernel
from _correct import correct
from _watch import profiled

EXPECTED = {
    "class": "X20",
    "cpu": {"not_exercised": "the CPU profile has no tensor-pipe counters and no profiler to tell apart"},
    "gpu": {"status": "integrity"},  # the tensor_precision audit (the shapes pass numerically)
}


def run(state, a, a_scale):
    if not a.is_cuda or profiled():
        return correct(state, a, a_scale)
    return bf16_kernel().run(state, a, a_scale)
