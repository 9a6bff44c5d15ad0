"""Known wrong (X21): calls cuBLASLt through an alias of torch._scaled_mm the AST would not name.

The run-time dispatch mode sees aten::_scaled_mm whatever the Python spelling, so this is refused.
"""

import torch

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}
_gemm = getattr(torch, "_scaled" + "_mm")


def run(state, a, a_scale):
    return _gemm(a, state["b"].T, scale_a=a_scale, scale_b=state["b_scale"], out_dtype=torch.bfloat16)
