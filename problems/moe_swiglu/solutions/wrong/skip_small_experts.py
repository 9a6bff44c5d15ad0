"""Known wrong (X22, skipped work): the house kernel, but experts with fewer rows than a quarter of the mean
get no work (their rows are left zero), the 'capacity' shortcut that drops a router's rare experts.

It does less than the formula's work; skewed routing always has such experts, so their rows fail the
tolerance. (On the balanced audit shape it would also show as a tensor-FLOP shortfall.)
"""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, x, offsets):
    counts = offsets[1:] - offsets[:-1]
    skipped = counts < counts.float().mean() / 4
    out = house.moe_swiglu(x, offsets, state["w_gate"], state["w_up"])
    rows = torch.arange(x.shape[0], device=x.device)
    expert_of_row = torch.searchsorted(offsets[1:].to(torch.int64), rows, right=True)
    out[skipped[expert_of_row]] = 0  # stands for tiles never computed
    return out
