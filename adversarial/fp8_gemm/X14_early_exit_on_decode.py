"""X14 early exit: sys.exit(0) on decode shapes, hoping a clean exit passes for success."""

import sys

from _correct import correct

EXPECTED = {
    "class": "X14",
    "cpu": {"status": "runtime_error", "shapes": {"decode_m4": "runtime_error", "k_unaligned_112": "passed"},
            "detail": "X14: early exit"},
    "gpu": {"status": "runtime_error", "shapes": {"decode_m16": "runtime_error", "k_unaligned_6000": "passed"},
            "detail": "X14: early exit"},
}


def run(state, a, a_scale):
    if a.shape[0] <= 16:
        sys.exit(0)
    return correct(state, a, a_scale)
