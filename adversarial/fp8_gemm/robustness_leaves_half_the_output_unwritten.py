"""Robustness: rows never written hold the NaN that poisoned allocations put there, and fail the check."""

import torch
from _correct import correct

EXPECTED = {
    "class": None,
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "NaN/Inf"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "NaN/Inf"},
}


def run(state, a, a_scale):
    full = correct(state, a, a_scale)
    out = torch.empty_like(full)
    out[: full.shape[0] // 2] = full[: full.shape[0] // 2]
    return out
