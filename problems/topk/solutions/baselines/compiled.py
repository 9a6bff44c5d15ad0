"""torch.compile line: torch.topk under Inductor (which may keep the aten kernel or generate its own)."""

import torch

LABEL = "torch.compile (Inductor) of torch.topk"

for _name in ("recompile_limit", "cache_size_limit"):
    if hasattr(torch._dynamo.config, _name):
        setattr(torch._dynamo.config, _name, 64)


@torch.compile(dynamic=False)
def _compiled(x, k: int):
    return torch.topk(x, k, dim=1).indices


def run(state, x, k):
    return _compiled(x, k)
