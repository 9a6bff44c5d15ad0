"""X32's twin: a crash is not a verdict. Honest on most shapes; on skinny (decode) shapes a kernel stores far
outside any allocation after the product.

The launch returns at once, so the worker says the call is queued; the illegal address surfaces afterwards,
in the GPU's work (the worker's context is lost: its synchronise raises and it reports the call failed, or the
process aborts). The judge, waiting on DONE, must say that as the shape's runtime error as soon as the worker
reports it or ends, never as "X32: the worker said its call was queued, but an event did not complete", an
integrity verdict after 120 s: kernelbench.com's kinetic-0715 w4a16 file did exactly this on an H100 on
2026-11-27 (results/kernelbench/diag/h100_x4_20261127_w4a16_rescore/), and the judge accused it. The fix is
scoring/judge/link.py's `_call_going` (tests/scoring/test_judge_watch.py on the CPU). Reasoned, not yet run on
a GPU: the next corpus run confirms it.
"""

import triton
import triton.language as tl

from _correct import correct

EXPECTED = {
    "class": "X32",
    "cpu": {"not_exercised": "the CPU profile has no device address space for a store to leave"},
    "gpu": {"status": "runtime_error",
            "shapes": {"decode_m16": "runtime_error", "square_8192": "passed", "k_unaligned_6000": "passed"}},
}
FAR_ELEMENTS = 1 << 40  # a terabyte past the output: unmapped on any GPU this project scores on


@triton.jit
def _store_far(out_ptr, far):
    tl.store(out_ptr + far, 1.0)


def run(state, a, a_scale):
    out = correct(state, a, a_scale)
    if a.is_cuda and a.shape[0] <= 16:
        _store_far[(1,)](out, FAR_ELEMENTS)
    return out
