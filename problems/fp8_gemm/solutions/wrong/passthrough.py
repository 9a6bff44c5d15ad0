"""Known wrong (X01): returns the input A (widened to bf16, cropped or zero-padded to M x N)."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, a, a_scale):
    M, N = a.shape[0], state["b"].shape[0]
    out = torch.zeros((M, N), dtype=torch.bfloat16, device=a.device)
    width = min(N, a.shape[1])
    out[:, :width] = (a[:, :width].to(torch.float32) * a_scale).to(torch.bfloat16)
    return out
