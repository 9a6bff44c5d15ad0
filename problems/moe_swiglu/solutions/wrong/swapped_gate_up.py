"""Known wrong: applies SiLU to the up projection instead of the gate (silu(x W_up) * (x W_gate)).

The gate's weights are 1.5x the up's, so the two orders give different numbers and this fails."""

from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, x, offsets):
    return house.moe_swiglu(x, offsets, state["w_up"], state["w_gate"])
