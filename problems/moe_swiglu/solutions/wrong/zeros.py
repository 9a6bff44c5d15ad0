"""Known wrong (X01): returns zeros of the right shape and dtype. Fails every shape's tolerance."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x, offsets):
    return torch.zeros((x.shape[0], state["w_gate"].shape[2]), dtype=torch.bfloat16, device=x.device)
