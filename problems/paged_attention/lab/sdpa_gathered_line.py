"""The library line until issue 37 (now a lab comparison; solutions/baselines/library.py is FlashInfer's
paged decode): torch's scaled_dot_product_attention over pages gathered into a padded dense cache.

It needs no paged-attention library (FlashInfer, vLLM, flash-attn), only torch. lab/measure_flashinfer.py
times it as line `sdpa`, lab/bench_gpu.py sweeps its SDPA backends. SDPA takes dense K/V, so the pages are
gathered first (a copy of every addressed K/V row, which the roofline
does not count) and a boolean mask hides the padding past each sequence's length. SDPA picks its backend
(the flash kernel takes no mask, so on an H100 the memory-efficient or cuDNN kernel runs); query heads
share KV heads through `enable_gqa`. Measured against the alternatives in problems/paged_attention/NOTES.md.
"""

import torch
import torch.nn.functional as F

LABEL = "torch SDPA over gathered pages (masked, enable_gqa)"
PAGE_SIZE = 16
EXPAND_GQA = False  # True: repeat KV heads instead of enable_gqa (see NOTES.md for which is faster)


def library_version():
    return f"torch {torch.__version__} scaled_dot_product_attention"


def attention(q, k_cache, v_cache, block_table, seq_lens, expand_gqa=EXPAND_GQA):
    B, H, D = q.shape
    hkv = k_cache.shape[2]
    width = block_table.shape[1]
    k = k_cache[block_table.long()].reshape(B, width * PAGE_SIZE, hkv, D).transpose(1, 2)  # (B, Hkv, T, D)
    v = v_cache[block_table.long()].reshape(B, width * PAGE_SIZE, hkv, D).transpose(1, 2)
    if expand_gqa:
        k = k.repeat_interleave(H // hkv, dim=1)
        v = v.repeat_interleave(H // hkv, dim=1)
    keep = torch.arange(width * PAGE_SIZE, device=q.device)[None, :] < seq_lens[:, None]
    out = F.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=keep[:, None, None, :],
                                         enable_gqa=not expand_gqa)
    return out[:, :, 0, :].contiguous()


def run(state, q, block_table, seq_lens):
    return attention(q, state["k_cache"], state["v_cache"], block_table, seq_lens)
