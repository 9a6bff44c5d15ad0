"""RESIDUAL (X20 + X13), expected to succeed: bf16 wgmma on every call except the one the counter audit
profiles, which it finds by reading the grader's frames on the stack.

The counter audit profiles one timed call drawn with the run's secret seed, in the scoring worker
(scoring/audit.py). Which call that is lives in the worker's memory, and the solution's code runs in the
same Python process: `sys._getframe()` walks down to the grader's `call(..., audited=True)` frame
(_watch.audited_call_on_the_stack). No arrangement of the grader's Python state hides it from code in the
same interpreter (sys._current_frames, gc.get_objects reach everything), so this adversary passes the
audit and is scored on bf16 timings: docs/integrity.md lists it among the residuals. What it buys is
small on this problem (bf16 wgmma runs at half fp8's rate, so the bf16 path is slower; the gain is passing
with a kernel that is not fp8 at all), and it needs code written against the grader's internals, which
a reviewer of a submitted solution sees.
"""

from _bf16 import bf16_kernel
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
    return bf16_kernel().run(state, a, a_scale)
