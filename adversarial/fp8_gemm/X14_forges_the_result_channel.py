"""X14 forged result: writes to the result pipe the worker was given (its fd ends the command line)."""

import os
import sys

from _correct import correct

EXPECTED = {
    "class": "X14",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "X14: malformed message"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "X14: malformed message"},
}


def run(state, a, a_scale):
    os.write(int(sys.argv[-1]), b"not json at all\n")
    return correct(state, a, a_scale)
