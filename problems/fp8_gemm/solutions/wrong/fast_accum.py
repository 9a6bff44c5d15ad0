"""Known wrong on Hopper: the house kernel without fp32 promotion (Triton's default for fp8 dots).

Hopper's fp8 wgmma accumulator keeps fewer mantissa bits than fp32; over K = 4096..14336 the error grows
with sqrt(K) and its largest elements leave the tolerance (measured: normwise 2.6e-3 against 1.7e-3 for
cuBLASLt, max abs error 0.05 on unit-variance outputs). Triton's CPU interpreter accumulates in full
fp32, so there it passes.
"""

from _house import load_house

EXPECTED = {"cpu": "passed", "gpu": "incorrect"}
house = load_house()


def run(state, a, a_scale):
    M, K = a.shape
    config = dict(house.pick_config(M, state["b"].shape[0], K), PROMOTE_K=None)
    return house.fp8_gemm(a, state["b"], a_scale, state["b_scale"], config=config)
