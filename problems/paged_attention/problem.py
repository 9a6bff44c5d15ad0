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

from scoring.call_checks import check_finite, rows_per_block, sampled_rows, within_tolerance

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


# -- per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call) ----------------------------------
VERIFY_METHOD = ("min(B*H, 700) random (sequence, head) output rows (every row when fewer) recomputed in fp64 "
                 "from the paged cache through the block table (scores, softmax, weighted V rows; elementwise "
                 "products summed, no GEMM or SDPA), each element within 2x atol + rtol*|ref|; 1% of rows wrong "
                 "escapes with P <= 0.99^700 < 9e-4")

# A (sequence, head) row is what a decode kernel skips (a sequence, a head, a split of the context): 700
# sampled rows leave a 1%-wrong output unseen with probability 0.99^700 = 8.8e-4, a whole sequence or head
# (>= 1/64 of the rows on every shape) with < 2e-5. Every element of a row is compared, so a zeroed or stale
# row (|out| ~ 0.3..1, the bound ~0.02) cannot pass once sampled.
SAMPLED_ROWS = 700
# The full check holds every element within atol + rtol*|ref| of the same fp64 reference; 2x keeps any output
# that passes it clear of the summation-order differences between the two fp64 computations.
SAFETY = 2.0
CHUNK_ELEMENTS = 2**25  # fp64 products of 256 MiB at most: 0.64 GiB of extra memory at the peak (H100)
# Cost: every sampled row gathers its sequence's K and V rows (length x D each) and multiplies them in fp64,
# ~22 bytes moved per value. On long_32k_b4 (256 rows, every one sampled) that is 2.1G values, ~47 GB,
# measured 45 ms on an H100; on llama3_70b_b16_8k (700 of 1024 rows) 1.5G values, 26 ms; the calls take
# 0.16 ms at the roofline. An exact check of an attention row needs its whole context, and without a GEMM
# the query heads of one KV head share nothing but the gather: the sample size is the cost.


def _attend_rows(weights, q, block_table, seq_lens, seqs, q_heads, tokens):
    """out[seqs[i], q_heads[i]] in fp64 for a block of rows whose contexts are padded to `tokens`."""
    D = q.shape[2]
    kv_heads = (q_heads // (q.shape[1] // weights["k_cache"].shape[2]))[:, None]
    pages = block_table[seqs, : (tokens + PAGE_SIZE - 1) // PAGE_SIZE].long()  # past a sequence's end: masked
    # bf16 rows (rows, tokens, D), promoted to fp64 inside the products
    k, v = (cache[pages, :, kv_heads].reshape(len(seqs), -1, D)[:, :tokens]
            for cache in (weights["k_cache"], weights["v_cache"]))
    scores = (k * q[seqs, q_heads].double()[:, None, :]).sum(-1) / math.sqrt(D)
    past_end = torch.arange(tokens, device=q.device)[None, :] >= seq_lens[seqs].long()[:, None]
    attention = torch.softmax(scores.masked_fill(past_end, -math.inf), dim=-1)
    return (attention[:, :, None] * v).sum(1)


def verify_call(out, weights, inputs, gen, tolerance):
    nonfinite = check_finite(out, CHUNK_ELEMENTS)
    if nonfinite:
        return nonfinite
    q, block_table, seq_lens = inputs["q"], inputs["block_table"], inputs["seq_lens"]
    B, H, D = q.shape
    rows = sampled_rows(B * H, SAMPLED_ROWS, gen, out.device)
    lengths = seq_lens[rows // H]
    order = lengths.argsort()  # by context length, so that a block pads little
    rows, lengths = rows[order], lengths[order].tolist()  # one synchronisation: every block's padding is known
    step = rows_per_block(CHUNK_ELEMENTS, lengths[-1] * D)
    refs = [_attend_rows(weights, q, block_table, seq_lens, rows[i:i + step] // H, rows[i:i + step] % H,
                         lengths[min(i + step, len(lengths)) - 1])
            for i in range(0, len(lengths), step)]
    got = out.reshape(B * H, D)[rows].double()
    return within_tolerance(got, torch.cat(refs), tolerance, SAFETY, "elements of sampled (sequence, head) rows")
