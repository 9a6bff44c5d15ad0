"""Known wrong: applies a_scale but forgets b_scale (the operands' scales differ, so the output is off)."""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, a, a_scale):
    ones = torch.ones((), dtype=torch.float32, device=a.device)
    return house.fp8_gemm(a, state["b"], a_scale, ones)
