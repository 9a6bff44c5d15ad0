"""Known wrong (X21): the library line (gather pages, torch SDPA) submitted as a solution. Correct
numbers, but scaled_dot_product_attention is forbidden: the dispatch mode sees its backend operator
(flash/efficient/cuDNN/math, whichever SDPA picks) and refuses it.
"""

import torch
import torch.nn.functional as F

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}
PAGE = 16


def run(state, q, block_table, seq_lens):
    B, H, D = q.shape
    k_cache, v_cache = state["k_cache"], state["v_cache"]
    hkv, width = k_cache.shape[2], block_table.shape[1]
    k = k_cache[block_table.long()].reshape(B, width * PAGE, hkv, D).transpose(1, 2)
    v = v_cache[block_table.long()].reshape(B, width * PAGE, hkv, D).transpose(1, 2)
    keep = torch.arange(width * PAGE, device=q.device)[None, :] < seq_lens[:, None]
    out = F.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=keep[:, None, None, :], enable_gqa=True)
    return out[:, :, 0, :].contiguous()
