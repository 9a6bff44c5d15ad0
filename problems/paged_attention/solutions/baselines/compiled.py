"""torch.compile line: the eager line (gather + masked fp32 attention) compiled by Inductor."""

import torch
from eager import attention

LABEL = "torch.compile (Inductor, default mode) of the eager line"

for _name in ("recompile_limit", "cache_size_limit"):
    if hasattr(torch._dynamo.config, _name):
        setattr(torch._dynamo.config, _name, 64)

# dynamic=True: the block table's width changes every call; a static graph would recompile each time.
_compiled = torch.compile(attention, dynamic=True)


def run(state, q, block_table, seq_lens):
    return _compiled(q, state["k_cache"], state["v_cache"], block_table, seq_lens)
