"""Eager PyTorch line: gather every sequence's pages into a padded dense cache, then masked attention in
fp32 with einsum (what a straightforward PyTorch decode step does)."""

import math

import torch

LABEL = "eager PyTorch (gather pages, fp32 einsum, masked softmax)"
PAGE_SIZE = 16


def attention(q, k_cache, v_cache, block_table, seq_lens):
    B, H, D = q.shape
    hkv = k_cache.shape[2]
    width = block_table.shape[1]
    k = k_cache[block_table.long()].reshape(B, width * PAGE_SIZE, hkv, D)  # (B, T, Hkv, D), padded
    v = v_cache[block_table.long()].reshape(B, width * PAGE_SIZE, hkv, D)
    qg = q.float().reshape(B, hkv, H // hkv, D)
    scores = torch.einsum("bhgd,bthd->bhgt", qg, k.float()) / math.sqrt(D)
    past_end = torch.arange(width * PAGE_SIZE, device=q.device)[None, :] >= seq_lens[:, None]
    scores = scores.masked_fill(past_end[:, None, None, :], float("-inf"))
    out = torch.einsum("bhgt,bthd->bhgd", torch.softmax(scores, dim=-1), v.float())
    return out.reshape(B, H, D).to(torch.bfloat16)


def run(state, q, block_table, seq_lens):
    return attention(q, state["k_cache"], state["v_cache"], block_table, seq_lens)
