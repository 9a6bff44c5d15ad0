"""A kernelbench.com 03_paged_attention solution in their interface, in plain torch, for the adapter's CPU tests.

Their contract: Model(batch, num_heads, num_kv_heads, head_dim, seq_len, page_size) with no state dict (a
non-persistent `_dummy` buffer); forward(query, kv_cache, block_table, seq_lens), query (B, H, D) bf16,
kv_cache (pages, page_size, Hkv, 2D) bf16 with each token row packing [K | V], block_table
(B, ceil(seq_len / page_size)) int32, seq_lens (B,) int32 <= seq_len; returns (B, H, D) bf16:
    out[b, h] = softmax(q[b, h] . K_b^T / sqrt(D)) V_b over the first seq_lens[b] tokens of row b's pages,
query head h reading KV head h // (H / Hkv). Scores and weighted sums are elementwise products summed
(no GEMM operator, which our problem forbids); the two invariants their check.py keeps are asserted.
"""

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
            length = int(seq_lens[b])
            pages = block_table[b, : math.ceil(length / P)].long()
            kv = kv_cache[pages].reshape(-1, self.num_kv_heads, 2 * D)[:length].float()  # (T, Hkv, 2D)
            k = kv[..., :D].repeat_interleave(self.group_size, dim=1)  # (T, H, D)
            v = kv[..., D:].repeat_interleave(self.group_size, dim=1)
            scores = (query[b].float()[None] * k).sum(-1) * self.scale  # (T, H)
            weights = torch.softmax(scores, dim=0)
            out[b] = (weights[..., None] * v).sum(0).to(query.dtype)
        return out
