"""X13 + X20: bf16 wgmma (the known-wrong bf16_cast kernel) on every call except the one the counter audit
profiles, which it finds by reading the grader's frames on the stack, and where it runs the honest fp8
kernel.

The counter audit profiles one timed call drawn with the run's secret seed, in the scoring worker
(scoring/audit.py). Which call that is lives in the worker's memory, and the solution's code runs in the
same Python process: `sys._getframe()` walks down to the grader's `call(..., audited=True)` frame
(_watch.audited_call_on_the_stack). No arrangement of the grader's Python state hides it from code in the
same interpreter (sys._current_frames, gc.get_objects reach everything), so the tensor_precision audit
passes: it sees fp8 work on the call it profiled.

Defence (GPU): the profiled call stands for the timed calls only if it ran what they ran. Every call's
launches are named (scoring/kernel_record.py), and the profiled_call_representative audit fails a run whose
profiled call launched kernels the timed calls did not, or the other way round: here `_fp8_gemm_kernel`
on the audited call against `_bf16_gemm` on the timed ones. X20_residual_same_kernel_name_when_audited.py
gives both paths one name, which that audit cannot tell apart (docs/integrity.md, residuals).
"""

from _bf16 import bf16_kernel
from _correct import correct
from _watch import audited_call_on_the_stack

EXPECTED = {
    "class": "X13",
    "cpu": {"not_exercised": "the CPU profile has no tensor-pipe counters and no counter audit"},
    "gpu": {"status": "integrity"},  # profiled_call_representative (the precision audit itself passes)
}


def run(state, a, a_scale):
    if not a.is_cuda or audited_call_on_the_stack():
        return correct(state, a, a_scale)
    return bf16_kernel().run(state, a, a_scale)
