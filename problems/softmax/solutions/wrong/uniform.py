"""Known wrong (X01, mean-only output): 1/n everywhere, the right mean and sum but no per-element work."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x):
    return torch.full_like(x, 1.0 / x.shape[-1])
