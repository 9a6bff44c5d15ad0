"""Known wrong (X21): widens to bf16 and uses the @ operator (a vendor GEMM under the hood)."""

import torch

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}


def run(state, a, a_scale):
    c = a.to(torch.bfloat16) @ state["b"].to(torch.bfloat16).T
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
