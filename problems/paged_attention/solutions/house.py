"""House paged-attention decode kernel: split-context ("flash-decoding") in two Triton kernels.

1. `_split_kernel`, one program per (context chunk, KV head, sequence): it loads the G query heads that
   share the KV head as one (BLOCK_G, D) tile (G padded to the tensor cores' 16 rows), walks its chunk
   of the sequence BLOCK_T tokens at a time, translating token positions to pool rows through the
   block table, and keeps an online softmax (running max m, running sum l, unnormalised accumulator)
   in fp32. Scores and P.V run on the tensor cores (bf16 in, fp32 accumulate). Each K and V row of the
   sequence is read exactly once, by one program; chunks past a sequence's length exit at once.
2. `_combine_kernel`, one program per (sequence, query head): merges the chunks' (m, l, acc) partials
   with the usual rescaling and writes the bf16 output.

Splitting the context keeps every SM busy whatever the batch: a few long sequences get as many programs
as many short ones. The host needs no device sync: the chunk count comes from the block table's width.
Integer arguments that vary per call (table width, chunk count) are not specialised by Triton, so a new
width never recompiles.
"""

import math

import torch
import triton
import triton.language as tl

LABEL = "house Triton kernel (split-context decode, online softmax)"
PAGE_SIZE = 16


@triton.jit(do_not_specialize=["table_width", "num_chunks"])
def _split_kernel(q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, part_acc_ptr, part_ml_ptr, qk_scale_log2,
                  table_width, num_chunks, H, HKV: tl.constexpr, G: tl.constexpr, D: tl.constexpr,
                  BLOCK_G: tl.constexpr, BLOCK_T: tl.constexpr, CHUNK: tl.constexpr, PAGE: tl.constexpr):
    chunk = tl.program_id(0)
    kv_head = tl.program_id(1)
    seq = tl.program_id(2)
    seq_len = tl.load(lens_ptr + seq)
    start = chunk * CHUNK
    if start >= seq_len:
        return
    end = tl.minimum(start + CHUNK, seq_len)

    offs_g = tl.arange(0, BLOCK_G)
    offs_d = tl.arange(0, D)
    head = kv_head * G + offs_g  # the query heads that read this KV head
    q_rows = (seq * H + head).to(tl.int64) * D
    q = tl.load(q_ptr + q_rows[:, None] + offs_d[None, :], mask=(offs_g < G)[:, None], other=0.0)

    m = tl.full((BLOCK_G,), float("-inf"), tl.float32)
    l = tl.zeros((BLOCK_G,), tl.float32)
    acc = tl.zeros((BLOCK_G, D), tl.float32)
    table_row = table_ptr + seq.to(tl.int64) * table_width
    for t0 in range(start, end, BLOCK_T):
        offs_t = t0 + tl.arange(0, BLOCK_T)
        valid = offs_t < end
        page = tl.load(table_row + offs_t // PAGE, mask=valid, other=0)
        # pool row of each token, then its (KV head) slice: (page * PAGE + slot) * HKV * D + kv_head * D
        row = ((page.to(tl.int64) * PAGE + offs_t % PAGE) * HKV + kv_head) * D
        k = tl.load(k_ptr + row[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        v = tl.load(v_ptr + row[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        scores = tl.dot(q, tl.trans(k)) * qk_scale_log2  # (BLOCK_G, BLOCK_T), in log2 units
        scores = tl.where(valid[None, :], scores, float("-inf"))
        m_new = tl.maximum(m, tl.max(scores, axis=1))
        # P is rounded to bf16 for the tensor cores; the normaliser sums the rounded values, so the
        # weights applied to V sum to exactly 1 (no bias from the rounding).
        p = tl.math.exp2(scores - m_new[:, None]).to(tl.bfloat16)
        alpha = tl.math.exp2(m - m_new)
        l = l * alpha + tl.sum(p.to(tl.float32), axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m = m_new

    part = ((seq * H + head).to(tl.int64) * num_chunks + chunk)  # (BLOCK_G,) partial index
    tl.store(part_acc_ptr + part[:, None] * D + offs_d[None, :], acc, mask=(offs_g < G)[:, None])
    tl.store(part_ml_ptr + part * 2, m, mask=offs_g < G)
    tl.store(part_ml_ptr + part * 2 + 1, l, mask=offs_g < G)


@triton.jit(do_not_specialize=["num_chunks"])
def _combine_kernel(part_acc_ptr, part_ml_ptr, lens_ptr, out_ptr, num_chunks, H, D: tl.constexpr,
                    CHUNK: tl.constexpr, BLOCK_C: tl.constexpr):
    seq = tl.program_id(0) // H
    head = tl.program_id(0) % H
    used = tl.cdiv(tl.load(lens_ptr + seq), CHUNK)  # chunks that hold part of this sequence
    base = (seq * H + head).to(tl.int64) * num_chunks
    offs_d = tl.arange(0, D)
    m = tl.full((), float("-inf"), tl.float32)
    l = tl.zeros((), tl.float32)
    acc = tl.zeros((D,), tl.float32)
    for c0 in range(0, used, BLOCK_C):
        offs_c = c0 + tl.arange(0, BLOCK_C)
        valid = offs_c < used
        m_c = tl.load(part_ml_ptr + (base + offs_c) * 2, mask=valid, other=float("-inf"))
        l_c = tl.load(part_ml_ptr + (base + offs_c) * 2 + 1, mask=valid, other=0.0)
        acc_c = tl.load(part_acc_ptr + (base + offs_c)[:, None] * D + offs_d[None, :], mask=valid[:, None], other=0.0)
        m_new = tl.maximum(m, tl.max(m_c, axis=0))
        alpha = tl.math.exp2(m - m_new)
        w_c = tl.math.exp2(m_c - m_new)  # masked chunks: exp2(-inf) = 0
        l = l * alpha + tl.sum(l_c * w_c, axis=0)
        acc = acc * alpha + tl.sum(acc_c * w_c[:, None], axis=0)
        m = m_new
    tl.store(out_ptr + (seq * H + head).to(tl.int64) * D + offs_d, (acc / l).to(tl.bfloat16))


DEFAULT_CONFIG = dict(CHUNK=512, BLOCK_T=64, num_warps=4, num_stages=2)  # measured best overall: NOTES.md


def paged_decode(q, k_cache, v_cache, block_table, seq_lens, config=None):
    cfg = dict(DEFAULT_CONFIG, **(config or {}))
    chunk, launch = cfg.pop("CHUNK"), {"num_warps": cfg.pop("num_warps"), "num_stages": cfg.pop("num_stages")}
    B, H, D = q.shape
    hkv = k_cache.shape[2]
    G = H // hkv
    table_width = block_table.shape[1]
    num_chunks = triton.cdiv(table_width * PAGE_SIZE, chunk)  # covers the longest sequence, no sync needed
    part_acc = torch.empty((B, H, num_chunks, D), dtype=torch.float32, device=q.device)
    part_ml = torch.empty((B, H, num_chunks, 2), dtype=torch.float32, device=q.device)
    out = torch.empty((B, H, D), dtype=torch.bfloat16, device=q.device)
    qk_scale_log2 = 1.0 / math.sqrt(D) * 1.4426950408889634  # softmax in base 2: exp(x) = exp2(x log2 e)
    _split_kernel[(num_chunks, hkv, B)](
        q, k_cache, v_cache, block_table, seq_lens, part_acc, part_ml, qk_scale_log2, table_width, num_chunks, H,
        HKV=hkv, G=G, D=D, BLOCK_G=max(16, triton.next_power_of_2(G)), CHUNK=chunk, PAGE=PAGE_SIZE,
        **cfg, **launch)
    _combine_kernel[(B * H,)](part_acc, part_ml, seq_lens, out, num_chunks, H, D=D, CHUNK=chunk, BLOCK_C=16,
                              num_warps=4)
    return out


def run(state, q, block_table, seq_lens):
    return paged_decode(q, state["k_cache"], state["v_cache"], block_table, seq_lens)
