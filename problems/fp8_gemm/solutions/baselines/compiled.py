"""torch.compile line: the eager expression compiled by Inductor (free to fuse or pick its own GEMM)."""

import torch

LABEL = "torch.compile (Inductor, default mode)"

# One compiled graph per shape: raise Dynamo's recompile limit above the number of shapes in a run.
for _name in ("recompile_limit", "cache_size_limit"):
    if hasattr(torch._dynamo.config, _name):
        setattr(torch._dynamo.config, _name, 64)


@torch.compile(dynamic=False)
def _compiled(a, b, a_scale, b_scale):
    c = torch.mm(a.to(torch.bfloat16), b.to(torch.bfloat16).T)
    return (c * (a_scale * b_scale)).to(torch.bfloat16)


def run(state, a, a_scale):
    return _compiled(a, state["b"], a_scale, state["b_scale"])
