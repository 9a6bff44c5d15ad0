"""Known wrong (X21): torch.topk itself, refused by the run-time dispatch mode (aten::topk)."""

import torch

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}


def run(state, x, k):
    return torch.topk(x, k, dim=1).indices
