"""Known wrong: ignores the per-channel decay (g = 0), i.e. the plain delta rule (DeltaNet) on KDA's inputs.

A solution that mixes up the gate (or applies exp(-g) the wrong way round) lands on such numbers."""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, q, k, v, g, beta, scale):
    return house.kda_forward(q, k, v, torch.zeros_like(g), beta, scale)
