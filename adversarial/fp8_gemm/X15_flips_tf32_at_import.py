"""X15 global state: turns TF32 on at import (it would loosen the grader's fp32 reference on a GPU)."""

import torch
from _correct import correct

EXPECTED = {
    "class": "X15",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "flag cuda.matmul.allow_tf32"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "flag cuda.matmul.allow_tf32"},
}
torch.backends.cuda.matmul.allow_tf32 = True


def run(state, a, a_scale):
    return correct(state, a, a_scale)
