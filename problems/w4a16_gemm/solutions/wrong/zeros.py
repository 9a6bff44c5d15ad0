"""Known wrong (X01): returns zeros of the right shape and dtype. Outputs are unit-variance, so it fails."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x):
    return torch.zeros((x.shape[0], state["qweight"].shape[1]), dtype=torch.bfloat16, device=x.device)
