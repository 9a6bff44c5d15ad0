"""Known wrong (X21): torch.softmax itself, the library call the problem forbids.

It is also not accurate enough (1e-6 to 1e-5 relative on these families, measured in
problems/softmax/measurements/), but the run-time dispatch mode refuses it before any check: aten::_softmax.
"""

import torch

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}


def run(state, x):
    return torch.softmax(x, dim=-1)
