"""torch.compile line: the eager dequantise + GEMM compiled by Inductor (free to fuse what it can)."""

import torch
from eager import dequantize_bf16

LABEL = "torch.compile (Inductor, default mode) of dequantise + mm"

for _name in ("recompile_limit", "cache_size_limit"):
    if hasattr(torch._dynamo.config, _name):
        setattr(torch._dynamo.config, _name, 64)


@torch.compile(dynamic=False)
def _compiled(x, qweight, scales, zeros):
    return torch.mm(x, dequantize_bf16(qweight, scales, zeros))


def run(state, x):
    return _compiled(x, state["qweight"], state["scales"], state["zeros"])
