"""X10 side stream: the house kernel launched on another stream and never joined, so the timed
stream's events see nothing; the device-wide synchronise after them measures the work that outlived them."""

import torch
from _correct import house

EXPECTED = {
    "class": "X10",
    "cpu": {"not_exercised": "the CPU profile has no streams; the tail rule is unit-tested in "
                             "tests/scoring/test_timing.py"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "X10: work on other streams"},
}
_side = []


def run(state, a, a_scale):
    if not _side:
        _side.append(torch.cuda.Stream())
    _side[0].wait_stream(torch.cuda.current_stream())  # inputs are ready; the result is never joined back
    with torch.cuda.stream(_side[0]):
        return house().fp8_gemm(a, state["b"], a_scale, state["b_scale"])
