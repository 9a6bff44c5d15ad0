"""Known wrong (X01): index 0 k times. Repeated indices (and, mostly, the wrong values) fail every shape."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x, k):
    return torch.zeros((x.shape[0], k), dtype=torch.int64, device=x.device)
