"""Known wrong (X22, approximate top-k): split each row into k bins and keep each bin's maximum.

The approx_max_k shortcut: one winner per bin, then sorted. Right only when the true winners fall into
distinct bins; the clustered family (all winners in one window) and random rows defeat it.
"""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, x, k):
    batch, n = x.shape
    width = -(-n // k)
    padded = torch.full((batch, width * k), float("-inf"), device=x.device)
    padded[:, :n] = x
    best = padded.view(batch, k, width).argmax(dim=2) + torch.arange(k, device=x.device) * width
    best = best.clamp(max=n - 1)  # an all-padding bin (tiny n) points at the last element
    order = house.topk_indices(x.gather(1, best).contiguous(), k)
    return best.gather(1, order)
