"""X13 + X21: calls torch._scaled_mm only when no dispatch mode watches (timed calls run unwatched).

The checked calls see an honest computation; the syntax-tree audit of the source still names the
forbidden operator, and refuses the file before any shape runs.
"""

import torch
from _correct import correct
from torch.utils._python_dispatch import _get_current_dispatch_mode

EXPECTED = {
    "class": "X13",
    "cpu": {"status": "forbidden_op", "detail": "X21: X13_hides_scaled_mm_from_the_watched_calls.py"},
    "gpu": {"status": "forbidden_op", "detail": "X21: X13_hides_scaled_mm_from_the_watched_calls.py"},
}


def run(state, a, a_scale):
    if _get_current_dispatch_mode() is None:
        return torch._scaled_mm(a, state["b"].T, scale_a=a_scale, scale_b=state["b_scale"], out_dtype=torch.bfloat16)
    return correct(state, a, a_scale)
