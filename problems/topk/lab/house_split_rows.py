"""Lab candidate for issue 37 (NOT MEASURED ON A GPU): house.py's algorithm with a dispatch derived from the shape.

Same interface as solutions/house.py (`run(state, x, k)` -> int64 indices (batch, k), ordered by value). Reuses
house.py's helpers and its final `_merge` by import; what changes (NOTES.md, "Why the held-out shapes lose"):

1. The chunk never grows to fit the merge. house.pick_config grows CHUNK until a row's candidate slots
   (chunks x CAP) fit one 16384-slot merge tile, which for KP = 64 happens once n > 32 x 4096 = 131072:
   random_256000 runs at CHUNK 8192 (16 warps) and neg_inf_1m at CHUNK 32768 (16 warps, 64 elements per
   thread, the only shape off the sweep's 16 elements per thread). Here CHUNK comes from k alone (house's
   CHUNK_BY_KP, the sweep's optimum at 16 elements per thread), shrunk only to fill the GPU (rule below).
2. A merge tree instead of one merge program per row over up to 16384 slots: while a row holds more than
   MERGE_TILE slots, `_merge_partial` programs (one per group of G chunks, batch x groups programs) cut each
   group to its exact top k, written into KP-slot strides; house's `_merge` then finishes each row over
   <= MERGE_TILE slots. This also spreads the merge over more than `batch` programs when batch < SMs.
3. Pass 1's threshold groups are strided (element i of a chunk belongs to group i % KP) instead of
   contiguous. With contiguous groups a partial tail chunk (n % CHUNK elements) has groups with no valid
   element, so tau = INT32_MIN, every valid element passes, and whenever the tail holds more than CAP
   elements the chunk runs the full ~32-step bisection from INT32_MIN (one such chunk per row on
   sampling_vocab_128k, neg_inf_152k, random_256000, ties_50000, neg_inf_32000). Strided groups all hold a
   valid element as soon as the tail has >= KP elements, so tau is a real lower bound there too.

Dispatch rule, a formula of (batch, n, k, SMs) and nothing else:
    KP = next_pow2(k), CAP = 8 KP
    CHUNK = largest c in {CHUNK_BY_KP[KP], /2, /4, ...}, c >= max(1024, 2 CAP),
            such that batch * ceil(n / c) >= WAVES * SMs  (WAVES = 4), else the floor; num_warps = CHUNK / 512
    merge tree: S = ceil(n / CHUNK) chunks of CAP slots; while S * stride > MERGE_TILE (4096):
            G = MERGE_TILE / stride chunks per partial program, S = ceil(S / G), stride = max(KP, 16)
    final merge: batch programs over S * stride <= MERGE_TILE slots (house._merge).
"""

import functools
import importlib.util
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl


def _load_house():
    name = "topk_house_for_split_rows"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parents[1] / "solutions" / "house.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


house = _load_house()
_order_keys = house._order_keys
_kth_largest_key = house._kth_largest_key
_select_exactly_k = house._select_exactly_k
_merge = house._merge
CHUNK_BY_KP = house.CHUNK_BY_KP

LABEL = "lab: house with a shape-derived dispatch (no chunk growth, merge tree, strided threshold groups)"

INT32_MIN = tl.constexpr(-2147483648)
INT32_MAX = tl.constexpr(2147483647)

WAVES = 4  # pass-1 programs wanted per SM before the chunk may shrink
MERGE_TILE = 4096  # most candidate slots one merge program holds
MIN_STRIDE = 16  # slots per group after a partial merge (KP, at least this: keeps tiny tiles out of tl.arange)
DEFAULT_SMS = 132  # when x is not on a CUDA device (the CPU interpreter)


@triton.jit
def _chunk_candidates_strided(x_ptr, cand_key_ptr, cand_idx_ptr, cand_count_ptr, n, k, chunks_per_row,
                              CHUNK: tl.constexpr, GROUPS: tl.constexpr, CAP: tl.constexpr):
    """house._chunk_candidates with group g = {i : i % GROUPS == g} (strided) for the threshold tau."""
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


@functools.lru_cache(maxsize=None)
def sm_count(device) -> int:
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return DEFAULT_SMS


def pick_config(batch: int, n: int, k: int, sms: int = DEFAULT_SMS, merge_tile: int = MERGE_TILE) -> dict:
    """The module docstring's rule: chunk from k (shrunk to give WAVES programs per SM), merge tree from n."""
    kp = triton.next_power_of_2(k)
    cap = 8 * kp
    floor = max(1024, 2 * cap)
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
    _chunk_candidates_strided[(programs,)](x, key, idx, count, n, k, chunks_per_row, CHUNK=chunk,
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
