"""House softmax: accurate to a few fp32 ulps on every element, in two memory-bound Triton passes.

Each row is cut into chunks of CHUNK elements; one program owns one chunk and holds it in registers.

Pass 1 (`_chunk_stats`): the chunk's maximum m_c and s_c = sum exp(x - m_c), written as partials.
Pass 2 (`_normalize`): every program combines its row's partials in fp64 (M = max m_c,
S = sum s_c * exp(m_c - M); a few dozen terms), reloads its chunk and writes exp(x - M) * (1 / S).

Where the accuracy comes from (the reference is an fp64 softmax of the same fp32 logits):
* x - m is formed exactly as a double-float (TwoSum): rounding fl(x - m) alone costs up to
  0.5 ulp(|x - m|), i.e. 1.9e-6 relative at x - m = -60.
* exp is our own fp32 routine (Cody-Waite reduction with a two-part ln 2, degree-7 polynomial, exponent
  bits set directly), about 1 ulp, and it takes the low part of the argument. Triton's tl.exp is
  ex2.approx of x * log2(e), whose product rounding costs ~2.6e-6 relative at x - m = -60.
* the chunk sum is a compensated (double-float) pairwise reduction: tl.reduce with a TwoSum combine, so
  terms far below an ulp of a partial sum (the dominant_tiny family) are kept, not dropped.
* the output is e * fl(1/S) with S from an fp64 combine: ~1.5 ulp on top of the exponential.
Measured worst relative error against fp64: see problems/softmax/NOTES.md.

Logits may be -inf (probability 0); anything more than 87.3 nats below the row maximum gives 0, which is
below 1.2e-38 and inside the absolute floor. Pass 2 visits chunks in reverse order, so its first programs
re-read the chunks pass 1 read last, while they are still in L2.
"""

import os

import torch
import triton
import triton.language as tl

LABEL = "house Triton kernel (two passes, exact x - max, own fp32 exp, double-float sums)"

LOG2E = tl.constexpr(1.4426950408889634)
LN2_HI = tl.constexpr(0.693145751953125)  # 16 significant bits: k * LN2_HI is exact for |k| < 256
LN2_LO = tl.constexpr(1.4286068203094173e-06)  # ln 2 - LN2_HI
INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"  # Triton's CPU interpreter (the CPU profile)
UNDERFLOW = tl.constexpr(-87.3)  # exp below this is < 2^-126: returned as 0 (far under the absolute tolerance)


@triton.jit
def _exp_of_sum(hi, lo):
    """exp(hi + lo) in fp32 to ~1 ulp, for hi in [UNDERFLOW, 0] and |lo| <= ulp(hi) (a TwoSum pair)."""
    k = tl.floor(hi * LOG2E + 0.5)
    r = tl.fma(k, -LN2_HI, hi)  # exact: k * LN2_HI is exact and close to hi
    r = tl.fma(k, -LN2_LO, r) + lo  # |r| <= 0.347
    p = 1.0 / 5040.0
    p = tl.fma(p, r, 1.0 / 720.0)
    p = tl.fma(p, r, 1.0 / 120.0)
    p = tl.fma(p, r, 1.0 / 24.0)
    p = tl.fma(p, r, 1.0 / 6.0)
    p = tl.fma(p, r, 0.5)
    p = tl.fma(p, r * r, r)  # r + r^2 * (1/2 + r/6 + ...): the small part, added to 1 last
    scale = ((k.to(tl.int32) + 127) << 23).to(tl.float32, bitcast=True)  # 2^k, k >= -126
    return (1.0 + p) * scale


@triton.jit
def _exp_shifted(x, m):
    """exp(x - m) for x <= m with x - m formed exactly (TwoSum); 0 where x is -inf or far below m."""
    d = x - m
    bb = d - x
    lo = (x - (d - bb)) + (-m - bb)  # d + lo == x - m exactly
    e = _exp_of_sum(d, lo)
    return tl.where(d >= UNDERFLOW, e, 0.0)


@triton.jit
def _two_sum_combine(a_hi, a_lo, b_hi, b_lo):
    s = a_hi + b_hi
    bb = s - a_hi
    err = (a_hi - (s - bb)) + (b_hi - bb)
    return s, a_lo + b_lo + err


@triton.jit
def _compensated_sum(e, LENGTH: tl.constexpr, HALVING_TREE: tl.constexpr):
    """sum(e) as a double-float (hi, lo): a pairwise reduction whose every addition is a TwoSum.

    On the GPU this is one tl.reduce. Triton's interpreter runs a custom-combine tl.reduce as a Python loop
    per element, so there (HALVING_TREE) the same combine is applied as an explicit halving tree instead.
    """
    lo = tl.zeros_like(e)
    if HALVING_TREE:
        for _ in tl.static_range(LENGTH.bit_length() - 1):
            a_hi, b_hi = tl.split(tl.reshape(e, [e.shape[0] // 2, 2]))
            a_lo, b_lo = tl.split(tl.reshape(lo, [lo.shape[0] // 2, 2]))
            e, lo = _two_sum_combine(a_hi, a_lo, b_hi, b_lo)
        return tl.sum(e, axis=0), tl.sum(lo, axis=0)
    else:
        return tl.reduce((e, lo), 0, _two_sum_combine)


@triton.jit
def _chunk_stats(x_ptr, m_part_ptr, s_part_ptr, n, chunks_per_row, CHUNK: tl.constexpr,
                 HALVING_TREE: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // chunks_per_row
    chunk = pid % chunks_per_row
    offs = chunk * CHUNK + tl.arange(0, CHUNK)
    x = tl.load(x_ptr + row.to(tl.int64) * n + offs, mask=offs < n, other=-float("inf"))
    m = tl.max(x, axis=0)
    # An all-masked chunk (m = -inf) shifts by 0 instead: every term is exp(-inf) = 0, so s = 0.
    e = _exp_shifted(x, tl.where(m == -float("inf"), 0.0, m))
    s_hi, s_lo = _compensated_sum(e, CHUNK, HALVING_TREE)
    s = s_hi.to(tl.float64) + s_lo.to(tl.float64)
    tl.store(m_part_ptr + pid, m)
    tl.store(s_part_ptr + pid, s)


@triton.jit
def _normalize(x_ptr, out_ptr, m_part_ptr, s_part_ptr, n, chunks_per_row, total_programs,
               CHUNK: tl.constexpr, CHUNKS_POW2: tl.constexpr):
    pid = total_programs - 1 - tl.program_id(0)  # reverse order: the last chunks pass 1 read are in L2
    row = pid // chunks_per_row
    chunk = pid % chunks_per_row
    parts = tl.arange(0, CHUNKS_POW2)
    part_mask = parts < chunks_per_row
    m_parts = tl.load(m_part_ptr + row * chunks_per_row + parts, mask=part_mask, other=-float("inf"))
    s_parts = tl.load(s_part_ptr + row * chunks_per_row + parts, mask=part_mask, other=0.0)
    row_max = tl.max(m_parts, axis=0)
    weights = tl.exp(m_parts.to(tl.float64) - row_max.to(tl.float64))  # fp64 exp: exact to ~1e-16
    total = tl.sum(tl.where(m_parts > -float("inf"), s_parts * weights, 0.0), axis=0)
    inv_total = (1.0 / total).to(tl.float32)
    offs = chunk * CHUNK + tl.arange(0, CHUNK)
    mask = offs < n
    x = tl.load(x_ptr + row.to(tl.int64) * n + offs, mask=mask, other=-float("inf"))
    e = _exp_shifted(x, row_max)
    tl.store(out_ptr + row.to(tl.int64) * n + offs, e * inv_total, mask=mask)


def pick_config(n: int) -> dict:
    """Chunk size and warps (measured on an H100, problems/softmax/NOTES.md)."""
    chunk = min(8192, triton.next_power_of_2(n))
    return dict(CHUNK=chunk, num_warps=max(1, min(8, chunk // 512)))


def softmax(x: torch.Tensor, config: dict | None = None) -> torch.Tensor:
    rows, n = x.shape
    cfg = dict(config or pick_config(n))
    chunk, num_warps = cfg["CHUNK"], cfg["num_warps"]
    chunks_per_row = triton.cdiv(n, chunk)
    programs = rows * chunks_per_row
    m_part = torch.empty(programs, dtype=torch.float32, device=x.device)
    s_part = torch.empty(programs, dtype=torch.float64, device=x.device)
    out = torch.empty_like(x)
    _chunk_stats[(programs,)](x, m_part, s_part, n, chunks_per_row, CHUNK=chunk,
                              HALVING_TREE=INTERPRETED, num_warps=num_warps)
    _normalize[(programs,)](x, out, m_part, s_part, n, chunks_per_row, programs, CHUNK=chunk,
                            CHUNKS_POW2=triton.next_power_of_2(chunks_per_row), num_warps=num_warps)
    return out


def run(state, x):
    return softmax(x.contiguous())
