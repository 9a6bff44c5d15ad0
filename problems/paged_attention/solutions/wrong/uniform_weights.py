"""Known wrong (X01 mean-only / X24): skips the scores and returns the plain mean of each sequence's V
rows (uniform attention weights). Cheap, the right magnitude for diffuse attention, and wrong here:
scores have std 2.56, so the softmax concentrates on a few tokens.
"""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
PAGE = 16


def run(state, q, block_table, seq_lens):
    B, H, D = q.shape
    v_cache = state["v_cache"]
    hkv = v_cache.shape[2]
    out = torch.empty_like(q)
    for b, length in enumerate(seq_lens.tolist()):
        pages = block_table[b, : (length + PAGE - 1) // PAGE].long()
        v = v_cache[pages].reshape(-1, hkv, D)[:length].float().mean(dim=0)  # (Hkv, D)
        out[b] = v.repeat_interleave(H // hkv, dim=0).to(q.dtype)
    return out
