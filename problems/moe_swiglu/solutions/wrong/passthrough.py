"""Known wrong (X01): returns the input x, cropped or zero-padded to (rows, I)."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x, offsets):
    I = state["w_gate"].shape[2]
    out = torch.zeros((x.shape[0], I), dtype=torch.bfloat16, device=x.device)
    width = min(I, x.shape[1])
    out[:, :width] = x[:, :width]
    return out
