"""Known wrong (X01): returns zeros of the right shape and dtype. Fails every shape's tolerance."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, a, a_scale):
    return torch.zeros((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16, device=a.device)
