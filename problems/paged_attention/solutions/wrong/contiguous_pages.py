"""Known wrong (X22/X23): ignores the block table's permutation and assumes each sequence's pages lie
contiguously in the pool (sequence b at pages b * width ...), as a kernel tested only on a freshly
filled cache would. The pool is shuffled, so it reads other sequences' tokens and the output is wrong.
"""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, q, block_table, seq_lens):
    B, width = block_table.shape
    pool = state["k_cache"].shape[0]
    contiguous = torch.arange(B * width, device=q.device, dtype=torch.int32).reshape(B, width) % pool
    return house.paged_decode(q, state["k_cache"], state["v_cache"], contiguous, seq_lens)
