"""House top-k: the indices of the k largest entries of each fp32 row, ordered by value (largest first).

Values become order-preserving int32 keys (flip the low 31 bits of negative floats; NaN -> INT32_MAX, above
+inf). Three Triton kernels, KP = next power of two >= k, CAP = 8 KP:

Pass 1 (`_chunk_candidates`), one program per CHUNK of a row, the chunk in registers: a cheap threshold tau
= the smallest of KP group maxima is a lower bound on the chunk's k-th largest key, since KP >= k distinct
elements reach it. Groups are strided (element i of a chunk is in group i mod KP), so a partial tail chunk
with >= KP valid elements still gets a real tau (contiguous groups past n held only padding there, tau fell
to INT32_MIN and the tail ran the full bisection). On random data about 300 of 4096 elements pass tau for
k = 50 (a numpy simulation; sorting 4 KP maxima for a tighter tau admitted 73 but was slower on the H100).
If at most CAP pass, they are the chunk's candidates; if more (ties, a cluster of winners), the exact k-th
largest key T is found by bisection over [tau, max] (no step when fewer than k keys exceed tau, as with -inf
padding or integer ties) and exactly k candidates are kept: keys > T and the first ties == T. Candidates are
compacted (prefix sum) into CAP slots per chunk.
Merge tree (`_merge_partial`), only while a row holds more than MERGE_TILE slots: one program per group of G
consecutive chunks (or groups) of a row keeps the group's exact top k (ties by slot order) in max(KP, 16)
slots, carrying the column indices along.
Final merge (`_merge`), one program per row over at most MERGE_TILE slots: the exact k-th largest key by
bisection, exactly k winners (ties broken by position), written as (key << 32 | index) to a k-slot scratch,
then placed by rank (each winner's position = how many winners beat it, a KP x KP comparison) and stored as
indices.

Dispatch (`pick_config`), a formula of (batch, n, k, SMs) and nothing else:
    KP = next_pow2(k), CAP = 8 KP
    CHUNK = the largest c in {CHUNK_BY_KP[KP], /2, /4, ...} with c >= max(1024, 2 CAP)
            such that batch * ceil(n / c) >= WAVES * SMs (WAVES = 4), else that floor; num_warps = CHUNK / 512
            (16 elements per thread). The chunk never grows with n.
    merge tree: S = ceil(n / CHUNK) groups of stride = CAP slots; while S * stride > MERGE_TILE (4096):
            G = MERGE_TILE / stride groups per partial program (batch * ceil(S / G) programs),
            S = ceil(S / G), stride = max(KP, 16)
    final merge: batch programs over next_pow2(S) * stride <= MERGE_TILE slots.
Why (problems/topk/NOTES.md): CHUNK_BY_KP is the H100 chunk sweep's optimum at 16 elements per thread ("Scoring
run"); the previous house grew CHUNK to keep one 16384-slot merge per row, which put the held-out neg_inf_1m at
CHUNK 32768 (0.045 of the roofline) and random_256000 at 8192 ("Why the held-out shapes lose"); the merge tree
keeps the chunk at the sweep's size and spreads the merge over more than `batch` programs. Measured against that
house on one H100 SXM: score 0.155 -> 0.175, held-out 0.111 -> 0.145, neg_inf_1m 0.045 -> 0.150, ties_32k and
ties_50000 7-12% slower (NOTES.md, "The shape-derived dispatch").

Pass 1 reads the input once at memory speed and does ~20 integer operations per element; the merges touch
about k candidates per chunk.
"""

import functools

import torch
import triton
import triton.language as tl

LABEL = "house Triton kernel (group-max threshold, exact bisection on ties, dispatch derived from the shape)"

INT32_MIN = tl.constexpr(-2147483648)
INT32_MAX = tl.constexpr(2147483647)
INT64_MIN = tl.constexpr(-9223372036854775808)

# Chunk size by KP, from the H100 sweep (NOTES.md): small chunks (more programs, fewer registers per
# thread) win while KP group maxima still leave few candidates; at KP >= 32 a chunk needs more elements per
# group. 16 elements per thread at every size.
CHUNK_BY_KP = {1: 1024, 2: 2048, 4: 2048, 8: 2048, 16: 2048, 32: 4096, 64: 4096}
WAVES = 4  # pass-1 programs wanted per SM before the chunk may shrink
MERGE_TILE = 4096  # most candidate slots one merge program holds
MIN_STRIDE = 16  # slots per group after a partial merge (KP, at least this: keeps tiny tiles out of tl.arange)
DEFAULT_SMS = 132  # when x is not on a CUDA device (the CPU interpreter)


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
    """Pass 1: a chunk's candidates; tau from GROUPS strided groups (group g = {i : i % GROUPS == g})."""
    pid = tl.program_id(0)
    row = pid // chunks_per_row
    chunk = pid % chunks_per_row
    offs = chunk * CHUNK + tl.arange(0, CHUNK)
    valid = offs < n
    x = tl.load(x_ptr + row.to(tl.int64) * n + offs, mask=valid, other=0.0)
    keys = tl.where(valid, _order_keys(x), INT32_MIN)
    tau = tl.min(tl.max(tl.reshape(keys, [CHUNK // GROUPS, GROUPS]), axis=0), axis=0)
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
def _merge_partial(in_key_ptr, in_idx_ptr, in_count_ptr, out_key_ptr, out_idx_ptr, out_count_ptr, k,
                   groups_in, groups_out, GROUP: tl.constexpr, IN_STRIDE: tl.constexpr,
                   OUT_STRIDE: tl.constexpr):
    """One program per (row, group of GROUP input groups): the group's exact top k (ties by slot order),
    compacted into OUT_STRIDE slots, with their original column indices carried along."""
    pid = tl.program_id(0)
    row = pid // groups_out
    group = pid % groups_out
    s = tl.arange(0, GROUP * IN_STRIDE)
    member = group * GROUP + s // IN_STRIDE
    inside = member < groups_in
    counts = tl.load(in_count_ptr + row * groups_in + member, mask=inside, other=0)
    valid = inside & ((s % IN_STRIDE) < counts)
    where = (row * groups_in + member) * IN_STRIDE + (s % IN_STRIDE)
    keys = tl.load(in_key_ptr + where, mask=valid, other=INT32_MIN)
    lo = tl.min(tl.where(valid, keys, INT32_MAX), axis=0).to(tl.int64)
    hi = tl.max(keys, axis=0).to(tl.int64) + 1
    threshold = _kth_largest_key(keys, valid, k, lo, hi)
    selected = _select_exactly_k(keys, valid, k, threshold)  # every valid key when the group holds fewer than k
    index = tl.load(in_idx_ptr + where, mask=selected, other=0)
    slot = tl.cumsum(selected.to(tl.int32), axis=0) - 1
    tl.store(out_key_ptr + pid * OUT_STRIDE + slot, keys, mask=selected)
    tl.store(out_idx_ptr + pid * OUT_STRIDE + slot, index, mask=selected)
    tl.store(out_count_ptr + pid, tl.sum(selected.to(tl.int32), axis=0))


@triton.jit
def _merge(cand_key_ptr, cand_idx_ptr, cand_count_ptr, winners_ptr, out_ptr, k, chunks_per_row,
           CHUNKS_POW2: tl.constexpr, CAP: tl.constexpr, KP: tl.constexpr):
    """Final merge, one program per row over its groups of CAP slots (chunks, or a partial merge's groups)."""
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


@functools.lru_cache(maxsize=None)
def sm_count(device) -> int:
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return DEFAULT_SMS


def pick_config(batch: int, n: int, k: int, sms: int = DEFAULT_SMS, merge_tile: int = MERGE_TILE,
                chunk: int | None = None) -> dict:
    """The module docstring's rule: chunk from k (shrunk to give WAVES programs per SM), merge tree from n.

    `chunk` (a power of two >= 2 CAP) replaces the rule's chunk and `merge_tile` its tile, for a sweep or a
    test; the merge tree is always derived from the chunk in use."""
    kp = triton.next_power_of_2(k)
    cap = 8 * kp
    floor = max(1024, 2 * cap)
    if chunk is None:
        chunk = CHUNK_BY_KP[kp]
        while chunk // 2 >= floor and batch * triton.cdiv(n, chunk) < WAVES * sms:
            chunk //= 2
        chunk = max(chunk, floor)
    levels = []  # (input groups per row, GROUP, IN_STRIDE, output groups per row)
    groups, stride = triton.cdiv(n, chunk), cap
    out_stride = max(kp, MIN_STRIDE)
    while groups * stride > merge_tile:
        group = max(2, merge_tile // stride)
        levels.append((groups, group, stride, triton.cdiv(groups, group)))
        groups, stride = triton.cdiv(groups, group), out_stride
    return dict(CHUNK=chunk, GROUPS=kp, CAP=cap, KP=kp, num_warps=max(1, min(16, chunk // 512)), levels=levels,
                final_groups=groups, final_stride=stride, out_stride=out_stride)


def topk_indices(x: torch.Tensor, k: int, config: dict | None = None) -> torch.Tensor:
    batch, n = x.shape
    cfg = dict(config or pick_config(batch, n, k, sm_count(x.device)))
    chunk, cap, kp = cfg["CHUNK"], cfg["CAP"], cfg["KP"]
    chunks_per_row = triton.cdiv(n, chunk)
    programs = batch * chunks_per_row
    device = x.device
    key = torch.empty(programs * cap, dtype=torch.int32, device=device)
    idx = torch.empty(programs * cap, dtype=torch.int32, device=device)
    count = torch.empty(programs, dtype=torch.int32, device=device)
    _chunk_candidates[(programs,)](x, key, idx, count, n, k, chunks_per_row, CHUNK=chunk,
                                   GROUPS=cfg["GROUPS"], CAP=cap, num_warps=cfg["num_warps"])
    for groups_in, group, in_stride, groups_out in cfg["levels"]:
        out_stride = cfg["out_stride"]
        slots = batch * groups_out * out_stride
        out_key = torch.empty(slots, dtype=torch.int32, device=device)
        out_idx = torch.empty(slots, dtype=torch.int32, device=device)
        out_count = torch.empty(batch * groups_out, dtype=torch.int32, device=device)
        _merge_partial[(batch * groups_out,)](key, idx, count, out_key, out_idx, out_count, k, groups_in, groups_out,
                                              GROUP=group, IN_STRIDE=in_stride, OUT_STRIDE=out_stride,
                                              num_warps=min(16, max(4, group * in_stride // 1024)))
        key, idx, count = out_key, out_idx, out_count
    groups, stride = cfg["final_groups"], cfg["final_stride"]
    winners = torch.empty(batch * kp, dtype=torch.int64, device=device)
    out = torch.empty((batch, k), dtype=torch.int64, device=device)
    groups_pow2 = triton.next_power_of_2(groups)
    _merge[(batch,)](key, idx, count, winners, out, k, groups, CHUNKS_POW2=groups_pow2, CAP=stride, KP=kp,
                     num_warps=min(16, max(4, groups_pow2 * stride // 1024)))
    return out


def run(state, x, k):
    return topk_indices(x.contiguous(), k)
