"""X05 lazy output: returns a torch.Tensor subclass (where deferred work could hide)."""

import torch
from _correct import correct

EXPECTED = {
    "class": "X05",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "X05: output contract"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "X05: output contract"},
}


class Lazy(torch.Tensor):
    pass


def run(state, a, a_scale):
    return correct(state, a, a_scale).as_subclass(Lazy)
