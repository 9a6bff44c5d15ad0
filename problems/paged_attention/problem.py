"""Paged attention (decode): inputs, reference and roofline formulas (data in problem.toml).

Layout (vLLM's FlashAttention backend and FlashInfer's NHD layout):
  k_cache, v_cache: (num_pages, PAGE_SIZE=16, Hkv, D) bf16, the static pool (weights: the cache outlives
                    a decode step, so it is prepared once; its pages are addressed afresh every call);
  q:                (B, H, D) bf16, one query token per sequence, H = G * Hkv;
  block_table:      (B, max_pages) int32, row b lists the pool pages of sequence b in token order; entries
                    past ceil(seq_lens[b] / 16) are random pool pages (garbage a kernel must not read);
  seq_lens:         (B,) int32, ragged, >= 1, summing to exactly B * L.
Query head h attends with KV head h // G; the softmax scale is 1 / sqrt(D).

Bytes count what a decode step must move: q, the K and V rows of the tokens the sequences address (the
sum of the lengths, not the pool), one int32 block-table entry per page of 16 tokens, the lengths and the
output. The pool's pages are a random permutation, so a kernel that assumes contiguous pages is wrong.
"""

import math

import torch

PAGE_SIZE = 16
POOL_SLACK = 1.25  # the pool holds 25% more pages than one call addresses: pages are scattered, not packed
QK_STD = 1.6  # q and k entries ~ N(0, 1.6^2): scores q.k/sqrt(D) have std 2.56, peaky but not one-hot


def heads(shape):
    return shape["G"] * shape["Hkv"]


def total_tokens(shape):
    return shape["B"] * shape["L"]


def flops(shape):
    return 4 * total_tokens(shape) * heads(shape) * shape["D"]  # q.K^T and P.V, 2 FLOPs per multiply-add


def bytes_moved(shape):
    B, Hkv, D = shape["B"], shape["Hkv"], shape["D"]
    q_and_out = 2 * (2 * B * heads(shape) * D)  # bf16 q in, bf16 out
    kv = 2 * 2 * total_tokens(shape) * Hkv * D  # bf16 K and V rows of every addressed token, once
    table = 4 * math.ceil(total_tokens(shape) / PAGE_SIZE) + 4 * B  # one int32 per page, one length per sequence
    return q_and_out + kv + table


def output_spec(shape):
    return (shape["B"], heads(shape), shape["D"]), torch.bfloat16


def pool_pages(shape):
    most_pages_one_call = math.ceil(total_tokens(shape) / PAGE_SIZE) + shape["B"]
    return math.ceil(POOL_SLACK * most_pages_one_call)


def make_weights(shape, gen, device):
    dims = (pool_pages(shape), PAGE_SIZE, shape["Hkv"], shape["D"])
    k_cache = (torch.randn(dims, generator=gen, device=device) * QK_STD).to(torch.bfloat16)
    v_cache = torch.randn(dims, generator=gen, device=device).to(torch.bfloat16)
    return {"k_cache": k_cache, "v_cache": v_cache}


def _split_evenly_at_random(total, count, gen, device):
    """`count` lengths >= 1, uniform-ish in [0.25, 1.75] x the mean, summing to exactly `total`."""
    weights = torch.rand(count, generator=gen, device=device) * 1.5 + 0.25
    lengths = 1 + torch.floor(weights / weights.sum() * (total - count)).long()
    deficit = total - int(lengths.sum().item())  # 0 <= deficit < count, from the floors
    lengths[torch.randperm(count, generator=gen, device=device)[:deficit]] += 1
    return lengths


def sequence_lengths(shape, gen, device):
    B, L = shape["B"], shape["L"]
    total = B * L
    if not shape["edges"]:
        lengths = _split_evenly_at_random(total, B, gen, device)
    else:  # a length of 1, and one page boundary approached from both sides
        pages = max(1, L // PAGE_SIZE)
        edge = torch.tensor([1, PAGE_SIZE * pages - 1, PAGE_SIZE * pages, PAGE_SIZE * pages + 1], device=device)
        rest = _split_evenly_at_random(total - int(edge.sum()), B - len(edge), gen, device)
        lengths = torch.cat([edge, rest])
    lengths = lengths[torch.randperm(B, generator=gen, device=device)]
    assert int(lengths.sum()) == total and int(lengths.min()) >= 1
    return lengths.to(torch.int32)


def make_inputs(shape, weights, gen, device):
    B, D = shape["B"], shape["D"]
    seq_lens = sequence_lengths(shape, gen, device)
    pages_per_seq = (seq_lens.long() + PAGE_SIZE - 1) // PAGE_SIZE
    width = int(pages_per_seq.max().item())
    pool = weights["k_cache"].shape[0]
    # Unused entries hold random pool pages: reading past a sequence's length gives wrong numbers.
    block_table = torch.randint(0, pool, (B, width), generator=gen, device=device, dtype=torch.int32)
    used = torch.arange(width, device=device)[None, :] < pages_per_seq[:, None]
    pages = torch.randperm(pool, generator=gen, device=device)[: int(pages_per_seq.sum())]
    block_table[used] = pages.to(torch.int32)
    q = (torch.randn((B, heads(shape), D), generator=gen, device=device) * QK_STD).to(torch.bfloat16)
    return {"q": q, "block_table": block_table, "seq_lens": seq_lens}


def gather_sequence(cache, block_table_row, length):
    """(length, Hkv, D) rows of one sequence, read page by page through its block-table row."""
    pages = block_table_row[: (length + PAGE_SIZE - 1) // PAGE_SIZE].long()
    return cache[pages].reshape(-1, *cache.shape[2:])[:length]


def reference(weights, inputs):
    q, block_table, seq_lens = inputs["q"], inputs["block_table"], inputs["seq_lens"]
    B, H, D = q.shape
    Hkv = weights["k_cache"].shape[2]
    G = H // Hkv
    out = torch.empty((B, H, D), dtype=torch.float64, device=q.device)
    for b, length in enumerate(seq_lens.tolist()):
        k = gather_sequence(weights["k_cache"], block_table[b], length).double()  # (T, Hkv, D)
        v = gather_sequence(weights["v_cache"], block_table[b], length).double()
        qb = q[b].double().reshape(Hkv, G, D)
        scores = torch.einsum("hgd,thd->hgt", qb, k) / math.sqrt(D)
        weights_b = torch.softmax(scores, dim=-1)
        out[b] = torch.einsum("hgt,thd->hgd", weights_b, v).reshape(H, D)
    return out
