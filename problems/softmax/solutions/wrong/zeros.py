"""Known wrong (X01): zeros of the right shape and dtype. Every probability is off by 100%."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x):
    return torch.zeros_like(x)
