"""Known wrong: ignores the routing and applies expert 0's weights to every row (a grouped GEMM that
never reads the offsets). Correct only where one expert owns every row, which no shape has."""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, x, offsets):
    everything_to_expert_0 = torch.zeros_like(offsets)
    everything_to_expert_0[1:] = x.shape[0]
    return house.moe_swiglu(x, everything_to_expert_0, state["w_gate"], state["w_up"])
