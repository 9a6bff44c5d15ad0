"""RESIDUAL (X20 + X13), expected to succeed: bf16 wgmma on every call except the one the counter audit
profiles (found in the grader's frames, as X13_other_kernels_on_the_audited_call.py does), with the bf16
kernel given the house fp8 kernel's name, `_fp8_gemm_kernel`.

Launches are recorded by name, so the profiled call and the timed calls launched "the same kernels" and
the profiled_call_representative audit passes; the tensor_precision audit sees the fp8 kernel on the call
it profiled. The counters that would show the bf16 path on the timed calls cannot be read on every call
(a profiled call is replayed pass by pass), and no arrangement of the grader's Python state hides the
audited call from code in the same interpreter: docs/integrity.md lists this among the residuals. What
it buys is small on this problem (bf16 wgmma runs at half fp8's rate, so the bf16 path is slower; the gain
is passing with a kernel that is not fp8 at all), and it needs code written against the grader's
internals, which a reviewer of a submitted solution sees.
"""

from _bf16 import bf16_under_the_house_name
from _correct import correct
from _watch import audited_call_on_the_stack

EXPECTED = {
    "class": "X20",
    "cpu": {"not_exercised": "the CPU profile has no tensor-pipe counters and no counter audit"},
    "gpu": {"status": "passed"},
}


def run(state, a, a_scale):
    if not a.is_cuda or audited_call_on_the_stack():
        return correct(state, a, a_scale)
    return bf16_under_the_house_name(state, a, a_scale)
