"""X11 timer tampering: replaces time.perf_counter when imported."""

import time

from _correct import correct

EXPECTED = {
    "class": "X11",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "replaced time.perf_counter"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "replaced time.perf_counter"},
}
time.perf_counter = lambda: 0.0


def run(state, a, a_scale):
    return correct(state, a, a_scale)
