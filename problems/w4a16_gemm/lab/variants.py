"""Candidate W4A16 kernels for the next house kernel (measured by bench_variants.py on the GPU).

All variants read the same per-call bytes as the house kernel: packed int4 words (K / 8, N) or their
transpose (N, K / 8), bf16 scales and zeros (K / 128, N), x and the output. `prepare` builds every
layout once (not timed); each variant reads only its own.

Variants
* `swap16`  operands swapped: out^T (N x M) = W^T (N x K) @ x^T (K x M). The dequantised weight tile is
  tl.dot's A operand, which Hopper's wgmma can take from registers (no shared-memory round trip for the
  dequantised tile); x^T is the B operand (wgmma's N dimension = the token tile, 16..256). Words in the
  house's group-strided order (K / 8, N): nibble j of a (BLOCK_N, 16) word tile is a ready (BLOCK_N, 16)
  A tile for rows 16 j .. 16 j + 15 of the group, so 8 dots of K = 16 per group. Round 1 (NOTES.md)
  made it the house's kernel for M >= 17: it is the house's `_swap_kernel`, imported from
  solutions/house.py (as are `_finish`, `_group_range`, `_tile_origin` and `repack_group_strided`).
* `swap16p` swap16 with the next group's x^T prefetched into registers one loop step ahead (Triton 3.6
  pipelines only the word loads with cp.async; its x loads wait right before each dot).
* `swap128` the same swap with one K = 128 dot per group: words transposed to (N, K / 8) in GPTQ's own
  nibble order (value 8 w + j in nibble j of word w), so expanding a (BLOCK_N, 16) word tile to
  (BLOCK_N, 16, 8) nibbles and merging the last two axes gives the (BLOCK_N, 128) tile in natural K
  order; each thread's nibbles stay in its own registers (the merge is a register relabelling).
* `gemv_lean` (M = 1) the house GEMV with two fewer integer ops per 8 weights: nibble j is masked in
  place (no shift) and OR-ed with the exponent of 2^(23 - 4 j), which makes the float 2^(23 - 4 j) + q
  exactly; nibbles 4..7 come from the word shifted right by 16 once.
Split K: as the house kernel (fp32 partials, per-tile arrival counter, the last program reduces).
"""

import importlib.util
from pathlib import Path

import torch
import triton
import triton.language as tl


def _load_house():
    spec = importlib.util.spec_from_file_location("w4a16_house_for_variants",
                                                  Path(__file__).resolve().parents[1] / "solutions" / "house.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


house = _load_house()
_finish, _group_range, _tile_origin = house._finish, house._group_range, house._tile_origin
repack_group_strided, GROUP_SIZE = house.repack_group_strided, house.GROUP_SIZE


@triton.jit
def _swapped_kernel(x_ptr, words_ptr, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, M, N, K,
                    BLOCK_N: tl.constexpr, BLOCK_T: tl.constexpr, SPLIT_K: tl.constexpr,
                    WHOLE_GROUP_DOT: tl.constexpr, NUM_STAGES: tl.constexpr):
    """swap16p and swap128: one (BLOCK_N columns of W) x (BLOCK_T tokens) tile of out^T; one group of
    128 K rows per step.

    WHOLE_GROUP_DOT (swap128): words are (N, K / 8) in GPTQ nibble order, one K = 128 dot per group.
    Otherwise (swap16p): words are (K / 8, N) group-strided, eight K = 16 dots per group, and the next
    group's x^T is loaded into registers one step ahead (Triton 3.6's pipeliner streams the words with
    cp.async but loads x synchronously before each dot), then split into the eight (16, BLOCK_T) tiles."""
    _, _, offs_n, offs_t, pid_k = _tile_origin(BLOCK_N, BLOCK_T)
    mask_n = offs_n < N
    mask_t = offs_t < M
    offs_r = tl.arange(0, 16)
    g_first, g_last = _group_range(pid_k, K, SPLIT_K)
    # x^T[k, t] = x[t, k]. Tokens past M read row M - 1 (their outputs are masked at the store) so the
    # x loads need no mask.
    x_columns = x_ptr + tl.minimum(offs_t, M - 1).to(tl.int64)[None, :] * K
    acc = tl.zeros((BLOCK_N, BLOCK_T), dtype=tl.float32)
    # [r, t, a, b, c]: x^T row 16 (4 a + 2 b + c) + r of a group, token t (split on a, b, c below)
    x_group_ptrs = (x_ptr + tl.minimum(offs_t, M - 1).to(tl.int64)[None, :, None, None, None] * K
                    + offs_r[:, None, None, None, None] + 64 * tl.arange(0, 2)[None, None, :, None, None]
                    + 32 * tl.arange(0, 2)[None, None, None, :, None] + 16 * tl.arange(0, 2)[None, None, None, None, :])
    x_next = tl.zeros((16, BLOCK_T, 2, 2, 2), dtype=tl.bfloat16)
    if not WHOLE_GROUP_DOT:
        x_next = tl.load(x_group_ptrs + g_first * 128,
                         mask=g_first < g_last, other=0.0)
    for g in tl.range(g_first, g_last, num_stages=NUM_STAGES):
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero_scaled = tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32) * scale
        if WHOLE_GROUP_DOT:
            words = tl.load(words_ptr + offs_n.to(tl.int64)[:, None] * (K // 8) + (g * 16 + offs_r)[None, :],
                            mask=mask_n[:, None], other=0)  # (BLOCK_N, 16 words along K)
            shifts = 4 * tl.arange(0, 8)
            q = (words[:, :, None] >> shifts[None, None, :]) & 0xF  # [n, w, j] = value 8 w + j of the group
            w_tile = (q.to(tl.float32) * scale[:, None, None] - zero_scaled[:, None, None]).to(tl.bfloat16)
            w_tile = tl.reshape(w_tile, (BLOCK_N, 128))
            offs_k = tl.arange(0, 128)
            x_tile = tl.load(x_columns + (g * 128 + offs_k)[:, None])
            acc = tl.dot(w_tile, x_tile, acc)
        else:
            words = tl.load(words_ptr + (g * 16 + offs_r).to(tl.int64)[None, :] * N + offs_n[:, None],
                            mask=mask_n[:, None], other=0)  # (BLOCK_N, 16 word rows)
            x_group = x_next
            x_next = tl.load(x_group_ptrs + (g + 1) * 128,
                             mask=g + 1 < g_last, other=0.0)
            x_c0, x_c1 = tl.split(x_group)
            x_b00, x_b01 = tl.split(x_c0)
            x_b10, x_b11 = tl.split(x_c1)
            x_0, x_4 = tl.split(x_b00)  # [.., b=0, c=0] -> a = 0, 1: j = 0, 4
            x_2, x_6 = tl.split(x_b01)  # b = 1, c = 0: j = 2, 6
            x_1, x_5 = tl.split(x_b10)  # b = 0, c = 1
            x_3, x_7 = tl.split(x_b11)
            x_tiles = (x_0, x_1, x_2, x_3, x_4, x_5, x_6, x_7)
            for j in tl.static_range(8):
                q_j = ((words >> (4 * j)) & 0xF).to(tl.float32)  # rows 16 j + r of the group
                w_j = (q_j * scale[:, None] - zero_scaled[:, None]).to(tl.bfloat16)
                acc = tl.dot(w_j, x_tiles[j], acc)
    out_offsets = offs_t.to(tl.int64)[None, :] * N + offs_n[:, None]  # out[t, n] from the tile's [n, t]
    tile = tl.program_id(1) * tl.num_programs(0) + tl.program_id(0)
    _finish(acc, out_offsets, mask_n[:, None] & mask_t[None, :], out_ptr, partial_ptr, counter_ptr, tile, pid_k,
            M * N, SPLIT_K)


@triton.jit
def _gemv_lean_kernel(x_ptr, words_ptr, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, N, K,
                      BLOCK_N: tl.constexpr, SPLIT_K: tl.constexpr, NUM_STAGES: tl.constexpr):
    """M = 1 on group-strided words (K / 8, N): CUDA-core FMAs, 4 integer/float ops per weight."""
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < N
    offs_r = tl.arange(0, 16)
    g_first, g_last = _group_range(pid_k, K, SPLIT_K)
    acc = tl.zeros((16, BLOCK_N), dtype=tl.float32)
    for g in tl.range(g_first, g_last, num_stages=NUM_STAGES):
        words = tl.load(words_ptr + (g * 16 + offs_r).to(tl.int64)[:, None] * N + offs_n[None, :],
                        mask=mask_n[None, :], other=0)
        high_words = words >> 16  # nibbles 4..7 at bits 0..15 (sign bits above are masked off)
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero = tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        dot = tl.zeros((16, BLOCK_N), dtype=tl.float32)
        x_sum = tl.zeros((16,), dtype=tl.float32)
        for j in tl.static_range(8):
            x_j = tl.load(x_ptr + g * 128 + 16 * j + offs_r).to(tl.float32)
            if j < 4:
                source = words
            else:
                source = high_words
            # float bits (127 + 23 - s) << 23 | (q << s) = 2^(23 - s) + q exactly, s = 4 (j % 4)
            exponent_bits = tl.full((16, BLOCK_N), (150 - 4 * (j % 4)) << 23, tl.int32)
            magic = exponent_bits.to(tl.float32, bitcast=True)  # 2^(23 - s)
            q_j = ((source & (0xF << (4 * (j % 4)))) | exponent_bits).to(tl.float32, bitcast=True) - magic
            dot += x_j[:, None] * q_j
            x_sum += x_j
        acc += dot * scale[None, :] - x_sum[:, None] * (zero * scale)[None, :]
    _finish(tl.sum(acc, axis=0), offs_n, mask_n, out_ptr, partial_ptr, counter_ptr, pid_n, pid_k, N, SPLIT_K)


def prepare(qweight, scales, zeros):
    """Every layout the variants read (each variant reads one), plus zeroed split-K tile counters."""
    return {"group_strided": repack_group_strided(qweight),  # (K / 8, N)
            "transposed": qweight.T.contiguous(),  # (N, K / 8), GPTQ nibble order
            "scales": scales, "zeros": zeros,
            "counters": torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device)}


def split_for(tiles: int, groups: int, min_programs: int, max_split: int = 8) -> int:
    """Smallest power-of-two K split giving >= min_programs programs, keeping >= 4 groups per split."""
    split = 1
    while tiles * split < min_programs and split < max_split and groups // (2 * split) >= 4:
        split *= 2
    return split


def run_variant(state, x, variant: str, BLOCK_N: int, num_warps: int, num_stages: int, BLOCK_T: int = 16,
                SPLIT_K=None, min_programs_per_sm: int = 2):
    """Launch one variant. SPLIT_K None: split K until >= min_programs_per_sm programs per SM."""
    M, K = x.shape
    N = state["scales"].shape[1]
    out = torch.empty((M, N), dtype=torch.bfloat16, device=x.device)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    tiles_n = triton.cdiv(N, BLOCK_N)
    tiles_t = 1 if variant == "gemv_lean" else triton.cdiv(M, BLOCK_T)
    split = SPLIT_K or split_for(tiles_n * tiles_t, K // GROUP_SIZE, min_programs_per_sm * sms)
    if split > 1:
        partial = torch.empty((split, M, N), dtype=torch.float32, device=x.device)
        assert state["counters"].numel() >= tiles_n * tiles_t
    else:
        partial = out  # unused
    args = (x, None, state["scales"], state["zeros"], out, partial, state["counters"])
    if variant == "gemv_lean":
        assert M == 1
        args = (x, state["group_strided"]) + args[2:]
        _gemv_lean_kernel[(tiles_n, split)](*args, N, K, BLOCK_N=BLOCK_N, SPLIT_K=split, NUM_STAGES=num_stages,
                                            num_warps=num_warps)
    elif variant == "swap16":
        args = (x, state["group_strided"]) + args[2:]
        house._swap_kernel[(tiles_n, tiles_t, split)](*args, M, N, K, BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T,
                                                      SPLIT_K=split, NUM_STAGES=num_stages, num_warps=num_warps)
    elif variant in ("swap16p", "swap128"):
        whole = variant == "swap128"
        args = (x, state["transposed" if whole else "group_strided"]) + args[2:]
        _swapped_kernel[(tiles_n, tiles_t, split)](*args, M, N, K, BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T,
                                                   SPLIT_K=split, WHOLE_GROUP_DOT=whole, NUM_STAGES=num_stages,
                                                   num_warps=num_warps)
    else:
        raise ValueError(variant)
    return out
