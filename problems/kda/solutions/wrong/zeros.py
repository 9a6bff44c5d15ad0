"""Known wrong (X01): returns zeros of the right shape and dtype. Fails every shape's tolerance."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, q, k, v, g, beta, scale):
    return torch.zeros(v.shape, dtype=torch.bfloat16, device=v.device)
