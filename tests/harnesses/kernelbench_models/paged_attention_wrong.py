"""paged_attention.py with one realistic mistake: every sequence attends over seq_len tokens (the init
arg) instead of seq_lens[b]. Their check.py's main cases give every sequence exactly seq_len tokens, so those
pass it; our lengths are ragged, and the table's entries past a sequence's pages are other pages."""

import math

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, batch: int, num_heads: int, num_kv_heads: int, head_dim: int, seq_len: int, page_size: int):
        super().__init__()
        assert num_heads % num_kv_heads == 0
        self.batch, self.num_heads, self.num_kv_heads = batch, num_heads, num_kv_heads
        self.head_dim, self.seq_len, self.page_size = head_dim, seq_len, page_size
        self.group_size = num_heads // num_kv_heads
        self.scale = 1.0 / math.sqrt(head_dim)
        self.register_buffer("_dummy", torch.zeros(1, dtype=torch.bfloat16), persistent=False)

    def forward(self, query, kv_cache, block_table, seq_lens):
        B, D = query.shape[0], query.shape[2]
        P = self.page_size
        assert block_table.shape == (self.batch, math.ceil(self.seq_len / P)), "their table width"
        assert int(seq_lens.max()) <= self.seq_len, "their lengths are <= seq_len"
        out = torch.empty_like(query)
        for b in range(B):
            length = self.seq_len  # the mistake: the init arg, for every sequence
            pages = block_table[b, : math.ceil(length / P)].long()
            kv = kv_cache[pages].reshape(-1, self.num_kv_heads, 2 * D)[:length].float()  # (T, Hkv, 2D)
            k = kv[..., :D].repeat_interleave(self.group_size, dim=1)  # (T, H, D)
            v = kv[..., D:].repeat_interleave(self.group_size, dim=1)
            scores = (query[b].float()[None] * k).sum(-1) * self.scale  # (T, H)
            weights = torch.softmax(scores, dim=0)
            out[b] = (weights[..., None] * v).sum(0).to(query.dtype)
        return out
