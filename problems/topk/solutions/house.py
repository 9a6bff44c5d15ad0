"""House top-k: the indices of the k largest entries of each fp32 row, ordered by value (largest first).

Values become order-preserving int32 keys (flip the low 31 bits of negative floats; NaN -> INT32_MAX, above
+inf). Two Triton kernels:

Pass 1 (`_chunk_candidates`), one program per CHUNK of a row, the chunk in registers: a cheap threshold tau
= the smallest of KP group maxima (KP = next power of two >= k groups) is a lower bound on the chunk's
k-th largest key, since KP >= k distinct elements reach it. On random data about 300 of 4096 elements pass
it for k = 50 (a numpy simulation; sorting 4 KP maxima for a tighter tau admitted 73 but was slower on the
H100). If at most CAP = 8 KP pass, they are the chunk's candidates; if more (ties, a cluster of winners),
the exact k-th largest key T is found by bisection over [tau, max] (no step when fewer than k keys exceed
tau, as with -inf padding or integer ties) and exactly k candidates are kept: keys > T and the first ties
== T. Candidates are compacted (prefix sum) into CAP slots per chunk.
Pass 2 (`_merge`), one program per row, holds all its chunks' slots (at most 16384): the exact k-th
largest key by bisection, exactly k winners (ties broken by position), written as (key << 32 | index)
to a k-slot scratch, then placed by rank (each winner's position = how many winners beat it, a KP x KP
comparison) and stored as indices.

Pass 1 reads the input once at memory speed and does ~20 integer operations per element; pass 2 touches
about k candidates per chunk. Chunk sizes keep pass 2's tile within 16384 slots (NOTES.md has the numbers).
"""

import torch
import triton
import triton.language as tl

LABEL = "house Triton kernel (group-max threshold, exact bisection on ties, rank placement of k)"

INT32_MIN = tl.constexpr(-2147483648)
INT32_MAX = tl.constexpr(2147483647)
INT64_MIN = tl.constexpr(-9223372036854775808)
MAX_MERGE_SLOTS = 16384


@triton.jit
def _order_keys(x):
    """int32 keys in the float order (NaN above +inf): flip the magnitude bits of negative floats."""
    bits = x.to(tl.int32, bitcast=True)
    key = bits ^ ((bits >> 31) & 0x7FFFFFFF)
    return tl.where(x != x, INT32_MAX, key)


@triton.jit
def _kth_largest_key(keys, valid, k, lo, hi):
    """The largest t with count(keys >= t) >= k, given count(>= lo) >= k > count(>= hi) (int64 bounds).

    Bisection over the key range, after one count that settles the common tie cases at once: when fewer than
    k keys exceed lo, lo is the answer (-inf padding, a chunk of equal integers)."""
    if tl.sum((valid & (keys > lo.to(tl.int32))).to(tl.int32), axis=0) < k:
        hi = lo + 1
    while hi - lo > 1:
        mid = lo + (hi - lo) // 2
        count = tl.sum((valid & (keys >= mid.to(tl.int32))).to(tl.int32), axis=0)
        if count >= k:
            lo = mid
        else:
            hi = mid
    return lo.to(tl.int32)


@triton.jit
def _select_exactly_k(keys, valid, k, threshold):
    """Every key > threshold, then ties == threshold in position order until k are chosen."""
    above = valid & (keys > threshold)
    needed = k - tl.sum(above.to(tl.int32), axis=0)
    tie = valid & (keys == threshold)
    return above | (tie & (tl.cumsum(tie.to(tl.int32), axis=0) <= needed))


@triton.jit
def _chunk_candidates(x_ptr, cand_key_ptr, cand_idx_ptr, cand_count_ptr, n, k, chunks_per_row,
                      CHUNK: tl.constexpr, GROUPS: tl.constexpr, CAP: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // chunks_per_row
    chunk = pid % chunks_per_row
    offs = chunk * CHUNK + tl.arange(0, CHUNK)
    valid = offs < n
    x = tl.load(x_ptr + row.to(tl.int64) * n + offs, mask=valid, other=0.0)
    keys = tl.where(valid, _order_keys(x), INT32_MIN)
    tau = tl.min(tl.max(tl.reshape(keys, [GROUPS, CHUNK // GROUPS]), axis=1), axis=0)
    passing = valid & (keys >= tau)
    if tl.sum(passing.to(tl.int32), axis=0) > CAP:
        top = tl.max(keys, axis=0)
        threshold = _kth_largest_key(keys, valid, k, tau.to(tl.int64), top.to(tl.int64) + 1)
        selected = _select_exactly_k(keys, valid, k, threshold)
    else:
        selected = passing
    slot = tl.cumsum(selected.to(tl.int32), axis=0) - 1
    tl.store(cand_key_ptr + pid * CAP + slot, keys, mask=selected)
    tl.store(cand_idx_ptr + pid * CAP + slot, offs, mask=selected)
    tl.store(cand_count_ptr + pid, tl.sum(selected.to(tl.int32), axis=0))


@triton.jit
def _merge(cand_key_ptr, cand_idx_ptr, cand_count_ptr, winners_ptr, out_ptr, k, chunks_per_row,
           CHUNKS_POW2: tl.constexpr, CAP: tl.constexpr, KP: tl.constexpr):
    row = tl.program_id(0)
    s = tl.arange(0, CHUNKS_POW2 * CAP)
    chunk = s // CAP
    counts = tl.load(cand_count_ptr + row * chunks_per_row + chunk, mask=chunk < chunks_per_row, other=0)
    valid = (s % CAP) < counts
    where = (row * chunks_per_row) * CAP + s
    keys = tl.load(cand_key_ptr + where, mask=valid, other=INT32_MIN)
    lo = tl.min(tl.where(valid, keys, INT32_MAX), axis=0).to(tl.int64)
    hi = tl.max(keys, axis=0).to(tl.int64) + 1
    threshold = _kth_largest_key(keys, valid, k, lo, hi)
    selected = _select_exactly_k(keys, valid, k, threshold)
    index = tl.load(cand_idx_ptr + where, mask=selected, other=0)
    rank = tl.cumsum(selected.to(tl.int32), axis=0) - 1
    packed = (keys.to(tl.int64) << 32) | index.to(tl.int64)  # key order first; index (< 2^31) as payload
    tl.store(winners_ptr + row * KP + rank, packed, mask=selected)
    tl.debug_barrier()  # the k winners were written by many threads; read them back after the barrier
    r = tl.arange(0, KP)
    winners = tl.load(winners_ptr + row * KP + r, mask=r < k, other=INT64_MIN)
    # Output position = how many winners beat this one (packed values are distinct: indices are).
    position = tl.sum((winners[None, :] > winners[:, None]).to(tl.int32), axis=1)
    tl.store(out_ptr + row * k + position, winners & 0x7FFFFFFF, mask=r < k)


# Chunk size by KP, from the H100 sweep (NOTES.md): small chunks (more programs, fewer registers per
# thread) win while KP group maxima still leave few candidates; at KP >= 32 a chunk needs more elements per
# group. 16 elements per thread at every size.
CHUNK_BY_KP = {1: 1024, 2: 2048, 4: 2048, 8: 2048, 16: 2048, 32: 4096, 64: 4096}


def pick_config(n: int, k: int) -> dict:
    """CHUNK_BY_KP's chunk, grown where needed to keep pass 2's tile (chunks x CAP slots) within MAX_MERGE_SLOTS."""
    kp = triton.next_power_of_2(k)
    cap = 8 * kp
    chunk = max(CHUNK_BY_KP[kp], triton.next_power_of_2(triton.cdiv(n, MAX_MERGE_SLOTS // cap)))
    chunk = min(chunk, max(CHUNK_BY_KP[kp], triton.next_power_of_2(n)))
    return dict(CHUNK=chunk, GROUPS=kp, CAP=cap, KP=kp, num_warps=min(16, chunk // 512))


def topk_indices(x: torch.Tensor, k: int, config: dict | None = None) -> torch.Tensor:
    batch, n = x.shape
    cfg = dict(config or pick_config(n, k))
    chunk, cap, kp = cfg["CHUNK"], cfg["CAP"], cfg["KP"]
    chunks_per_row = triton.cdiv(n, chunk)
    programs = batch * chunks_per_row
    device = x.device
    cand_key = torch.empty(programs * cap, dtype=torch.int32, device=device)
    cand_idx = torch.empty(programs * cap, dtype=torch.int32, device=device)
    cand_count = torch.empty(programs, dtype=torch.int32, device=device)
    winners = torch.empty(batch * kp, dtype=torch.int64, device=device)
    out = torch.empty((batch, k), dtype=torch.int64, device=device)
    _chunk_candidates[(programs,)](x, cand_key, cand_idx, cand_count, n, k, chunks_per_row, CHUNK=chunk,
                                   GROUPS=cfg["GROUPS"], CAP=cap, num_warps=cfg["num_warps"])
    chunks_pow2 = triton.next_power_of_2(chunks_per_row)
    _merge[(batch,)](cand_key, cand_idx, cand_count, winners, out, k, chunks_per_row, CHUNKS_POW2=chunks_pow2,
                     CAP=cap, KP=kp, num_warps=min(16, max(4, chunks_pow2 * cap // 1024)))
    return out


def run(state, x, k):
    return topk_indices(x.contiguous(), k)
