"""House W4A16 GEMM: out = x @ W, W dequantised from packed int4 inside the GEMM's main loop.

Preparation (once per weight, not scored) repacks GPTQ's words without changing their size: within each
group of 128 rows of K, word row r (0..15) of the group keeps in nibble j the value of row 16 * j + r
("group-strided" order). Unpacking nibble j of a 16-row tile of words then yields rows 16j .. 16j + 15
of the group as a ready tile: no reshape or interleave in the kernel, and every packed word crosses DRAM
exactly once. All three kernels read this one layout.

Three Triton kernels, one output tile per program, one group of 128 rows of K per loop step; `DISPATCH`
picks one by M (measured on an H100, NOTES.md):
Every kernel turns a nibble into the float 128 + q with two integer ops (`_biased_nibble`).
* `_gemv_kernel` (M = 1): CUDA-core multiply-adds on (16, BLOCK_N) fp32 tiles of x (128 + q); the zero
  point, the 128 and the scale are applied once per group and column: s * (sum x (128 + q) - (128 + z) sum x).
* `_mma_kernel` (small decode batches): per nibble, the (16, BLOCK_N) tile is dequantised to bf16
  ((128 + q) * s - (128 + z) * s, one exact fused multiply-add in fp32) and a (BLOCK_M, 16) x (16, BLOCK_N)
  tensor-core dot accumulates it in fp32.
* `_swap_kernel` (larger M): the same dequantisation with the operands swapped, out^T = W^T @ x^T: the
  dequantised (BLOCK_N, 16) weight tile is the dot's A operand, which Hopper's wgmma takes from
  registers (no shared-memory round trip), and x^T is the B operand, whose wgmma N dimension is the
  token tile BLOCK_T (16..256).
Few output tiles (decode) split K over SPLIT_K programs per tile: each writes an fp32 partial and bumps a
per-tile counter; the last to arrive sums the partials, writes the bf16 tile and resets the counter
(one kernel, no memset). Counters live in the prepared state.
"""

import torch
import triton
import triton.language as tl

LABEL = "house Triton kernel (fused int4 dequant, GEMV / bf16 MMA / swapped MMA, split-K)"
GROUP_SIZE = 128
ROWS = GROUP_SIZE // 8  # word rows per group: 16


@triton.jit
def _finish(acc, out_offsets, out_mask, out_ptr, partial_ptr, counter_ptr, tile, pid_k, MN,
            SPLIT_K: tl.constexpr):
    """Write the tile, or (split K) its fp32 partial; the last split to arrive reduces and writes."""
    if SPLIT_K == 1:
        tl.store(out_ptr + out_offsets, acc.to(tl.bfloat16), mask=out_mask)
    else:
        tl.store(partial_ptr + pid_k.to(tl.int64) * MN + out_offsets, acc, mask=out_mask)
        tl.debug_barrier()  # every thread's partial is written before the counter moves
        arrived = tl.atomic_add(counter_ptr + tile, 1, sem="acq_rel")
        if arrived == SPLIT_K - 1:
            total = tl.zeros(acc.shape, dtype=tl.float32)
            for split in tl.static_range(SPLIT_K):
                total += tl.load(partial_ptr + tl.full((), split, tl.int64) * MN + out_offsets, mask=out_mask,
                                 other=0.0, cache_modifier=".cg")
            tl.store(out_ptr + out_offsets, total.to(tl.bfloat16), mask=out_mask)
            tl.atomic_xchg(counter_ptr + tile, 0)  # ready for the next call


@triton.jit
def _group_range(pid_k, K, SPLIT_K: tl.constexpr):
    """The groups of 128 K rows that split `pid_k` of SPLIT_K walks: [first, last)."""
    groups = K // 128
    per_split = tl.cdiv(groups, SPLIT_K)
    first = pid_k * per_split
    return first, tl.minimum(first + per_split, groups)


@triton.jit
def _biased_nibble(words, j: tl.constexpr):
    """128 + q as fp32 for nibble j of every word: the nibble moved to bits 16..19 (no shift for j = 4) and
    OR-ed with the bits of 128.0: two integer ops, no int-to-float conversion (1-3% faster than a shift,
    mask and I2F on the H100, NOTES.md). Then (128 + q) * s - (128 + z) * s is exact in one fp32 FFMA: both
    terms have significands of at most 8 x 8 bits, so the bf16 weight is (q - z) * s rounded once."""
    if j < 4:
        at_16 = words << (16 - 4 * j)
    elif j == 4:
        at_16 = words
    else:
        at_16 = words >> (4 * j - 16)  # the sign bits this drags in are masked off
    return ((at_16 & 0x000F0000) | 0x43000000).to(tl.float32, bitcast=True)


@triton.jit
def _gemv_kernel(x_ptr, words_ptr, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, N, K,
                 BLOCK_N: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < N
    offs_r = tl.arange(0, 16)
    g_first, g_last = _group_range(pid_k, K, SPLIT_K)
    acc = tl.zeros((16, BLOCK_N), dtype=tl.float32)
    for g in range(g_first, g_last):
        words = tl.load(words_ptr + (g * 16 + offs_r).to(tl.int64)[:, None] * N + offs_n[None, :],
                        mask=mask_n[None, :], other=0)
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero = tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        dot = tl.zeros((16, BLOCK_N), dtype=tl.float32)
        x_sum = tl.zeros((16,), dtype=tl.float32)
        for j in tl.static_range(8):
            x_j = tl.load(x_ptr + g * 128 + 16 * j + offs_r).to(tl.float32)
            dot += x_j[:, None] * _biased_nibble(words, j)  # sum x (128 + q)
            x_sum += x_j
        # s * (sum x (128 + q) - (128 + z) sum x); the 128 offset costs ~7 bits of the fp32 sum's 24
        acc += dot * scale[None, :] - x_sum[:, None] * ((zero + 128.0) * scale)[None, :]
    _finish(tl.sum(acc, axis=0), offs_n, mask_n, out_ptr, partial_ptr, counter_ptr, pid_n, pid_k, N,
            SPLIT_K)


@triton.jit
def _mma_kernel(x_ptr, words_ptr, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, M, N, K,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = offs_m < M
    mask_n = offs_n < N
    offs_r = tl.arange(0, 16)
    g_first, g_last = _group_range(pid_k, K, SPLIT_K)
    x_rows = x_ptr + offs_m.to(tl.int64)[:, None] * K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for g in range(g_first, g_last):
        words = tl.load(words_ptr + (g * 16 + offs_r).to(tl.int64)[:, None] * N + offs_n[None, :],
                        mask=mask_n[None, :], other=0)
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero = tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        offset = (zero + 128.0) * scale
        for j in tl.static_range(8):
            a_j = tl.load(x_rows + (g * 128 + 16 * j + offs_r)[None, :], mask=mask_m[:, None], other=0.0)
            w_j = (_biased_nibble(words, j) * scale[None, :] - offset[None, :]).to(tl.bfloat16)
            acc = tl.dot(a_j, w_j, acc)
    out_offsets = offs_m.to(tl.int64)[:, None] * N + offs_n[None, :]
    tile = pid_m * tl.num_programs(0) + pid_n
    _finish(acc, out_offsets, mask_m[:, None] & mask_n[None, :], out_ptr, partial_ptr, counter_ptr, tile, pid_k,
            M * N, SPLIT_K)


@triton.jit
def _swap_kernel(x_ptr, words_ptr, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, M, N, K,
                 BLOCK_N: tl.constexpr, BLOCK_T: tl.constexpr, SPLIT_K: tl.constexpr, NUM_STAGES: tl.constexpr):
    """One (BLOCK_N columns of W) x (BLOCK_T tokens) tile of out^T = W^T @ x^T."""
    pid_n = tl.program_id(0)
    pid_t = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    mask_n = offs_n < N
    mask_t = offs_t < M
    offs_r = tl.arange(0, 16)
    g_first, g_last = _group_range(pid_k, K, SPLIT_K)
    # x^T[k, t] = x[t, k]. Tokens past M read row M - 1 (their outputs are masked at the store) so the
    # x loads need no mask.
    x_columns = x_ptr + tl.minimum(offs_t, M - 1).to(tl.int64)[None, :] * K
    acc = tl.zeros((BLOCK_N, BLOCK_T), dtype=tl.float32)
    for g in tl.range(g_first, g_last, num_stages=NUM_STAGES):
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        offset = (tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32) + 128.0) * scale
        words = tl.load(words_ptr + (g * 16 + offs_r).to(tl.int64)[None, :] * N + offs_n[:, None],
                        mask=mask_n[:, None], other=0)  # (BLOCK_N, 16 word rows)
        for j in tl.static_range(8):  # rows 16 j + r of the group
            w_j = (_biased_nibble(words, j) * scale[:, None] - offset[:, None]).to(tl.bfloat16)
            x_j = tl.load(x_columns + (g * 128 + 16 * j + offs_r)[:, None])
            acc = tl.dot(w_j, x_j, acc)
    out_offsets = offs_t.to(tl.int64)[None, :] * N + offs_n[:, None]  # out[t, n] from the tile's [n, t]
    tile = pid_t * tl.num_programs(0) + pid_n
    _finish(acc, out_offsets, mask_n[:, None] & mask_t[None, :], out_ptr, partial_ptr, counter_ptr, tile, pid_k,
            M * N, SPLIT_K)

# Dispatch by M: (largest M of the row, kernel config, minimum programs per SM before K is split). First
# row whose largest M >= M wins. Fractions of the roofline are H100 SXM benches: round 1,
# measurements/bench_variants_round1_h100.json (`python problems/w4a16_gemm/bench_variants.py --out FILE`;
# its swap16 rows are `_swap_kernel`), and round 2 with the exact-FFMA dequantisation,
# measurements/bench_house_ffma_h100.json (`python problems/w4a16_gemm/bench_house.py --previous OLD --out
# FILE`, "alt" rows). M values between the measured ones (1, 7, 16, 32, 64, 128, 256) are not measured:
# their row takes the token tile BLOCK_T = the row's M rounded up to a power of two, so one token tile covers
# the batch and each weight tile is read once.
DISPATCH = [
    # M = 1: CUDA-core GEMV, 0.460 with 128 columns and >= 4 programs per SM (0.455 with 64). No
    # tensor-core path came close (swap16 0.376, the TMA variants of variants_tma.py 0.31).
    (1, dict(KERNEL="gemv", BLOCK_N=128, num_warps=4, num_stages=3), 4),
    # M 2..16: bf16-dequant MMA on a 16-row tile: 0.460 at M = 7, 0.406 at M = 16; swap16 N64 T16 ties
    # (0.455, 0.408), 128-column tiles of either kernel are slower (0.38-0.39).
    (16, dict(KERNEL="mma", BLOCK_M=16, BLOCK_N=64, num_warps=4, num_stages=3), 2),
    # M 17..32: swap16 N64 T32, 4 warps, K split to >= 4 programs per SM: 0.353 at M = 32
    # (batch_m32_qwen72b_down; 0.341 with >= 2 per SM, the MMA path 0.330).
    (32, dict(KERNEL="swap", BLOCK_N=64, BLOCK_T=32, num_warps=4, num_stages=3), 4),
    # M 33..64: swap16 N128 T64, 8 warps: 0.216 at M = 64 (batch_m64_70b_qkv; N64 T64 4 warps 0.191,
    # N128 T64 4 warps 0.162).
    (64, dict(KERNEL="swap", BLOCK_N=128, BLOCK_T=64, num_warps=8, num_stages=3), 2),
    # M > 64: swap16 N128 T128, 8 warps, K never split (fp32 partials of a large M cost as much as the
    # weight): 0.232 at M = 128 and 0.286 at M = 256 (two token tiles). 4 stages tie; a 256-token tile
    # (0.179), 256 columns (0.143) and 64-column or 64-token tiles (0.20-0.22) are slower.
    (None, dict(KERNEL="swap", BLOCK_N=128, BLOCK_T=128, num_warps=8, num_stages=3), 0),
]


def _rows_per_tile(cfg: dict) -> int:
    """Rows of x (tokens) per output tile."""
    return {"gemv": 1, "mma": cfg.get("BLOCK_M"), "swap": cfg.get("BLOCK_T")}[cfg["KERNEL"]]


def pick_config(M: int, N: int, K: int, sm_count: int) -> dict:
    """The DISPATCH row of M, with its K split: the smallest power of two giving the row's programs per
    SM, at most 8 and keeping >= 4 groups of K per split."""
    for max_m, row_cfg, programs_per_sm in DISPATCH:
        if max_m is None or M <= max_m:
            break
    cfg = dict(row_cfg)
    tiles = triton.cdiv(M, _rows_per_tile(cfg)) * triton.cdiv(N, cfg["BLOCK_N"])
    groups = K // GROUP_SIZE
    split = 1
    while tiles * split < programs_per_sm * sm_count and split < 8 and groups // (2 * split) >= 4:
        split *= 2
    cfg["SPLIT_K"] = split
    return cfg


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # Triton's CPU interpreter: a few 'SMs' so that small shapes exercise split-K


def repack_group_strided(qweight: torch.Tensor) -> torch.Tensor:
    """GPTQ words (value k in nibble k % 8 of row k // 8) -> the same bytes, nibble j of row r of each
    group's 16 rows holding value 16 * j + r of the group."""
    K8, N = qweight.shape
    shifts = 4 * torch.arange(8, device=qweight.device, dtype=torch.int32)
    q = ((qweight[:, None, :] >> shifts[None, :, None]) & 0xF).reshape(K8 * 8, N)  # (K, N) values
    q = q.reshape(-1, 8, ROWS, N).to(torch.int64)  # [group, nibble j, row r, n] = value 16 j + r
    words = (q << (4 * torch.arange(8, device=q.device))[None, :, None, None]).sum(dim=1)  # (groups, 16, N)
    words = torch.where(words >= 2**31, words - 2**32, words)  # same 32 bits as a signed int32
    return words.reshape(K8, N).to(torch.int32).contiguous()


def w4a16_gemm(x, words, scales, zeros, counters, config=None):
    """x (M, K) bf16 times the weight in group-strided words (K / 8, N), scales and zeros (K / 128, N)."""
    M, K = x.shape
    N = words.shape[1]
    cfg = dict(config or pick_config(M, N, K, _sm_count(x.device)))
    tiles_n, tiles_m = triton.cdiv(N, cfg["BLOCK_N"]), triton.cdiv(M, _rows_per_tile(cfg))
    kernel, split = cfg.pop("KERNEL"), cfg.pop("SPLIT_K", 1)
    out = torch.empty((M, N), dtype=torch.bfloat16, device=x.device)
    if split > 1:
        partial = torch.empty((split, M, N), dtype=torch.float32, device=x.device)
        if counters.numel() < tiles_n * tiles_m:
            raise ValueError(f"{tiles_n * tiles_m} output tiles need more split-K counters than prepared")
    else:
        partial = out  # unused
    args = (x, words, scales, zeros, out, partial, counters)
    if kernel == "gemv":
        assert M == 1, "the GEMV kernel computes one row"
        _gemv_kernel[(tiles_n, split)](*args, N, K, SPLIT_K=split, **cfg)
    elif kernel == "mma":
        _mma_kernel[(tiles_n, tiles_m, split)](*args, M, N, K, SPLIT_K=split, **cfg)
    else:  # the swap kernel pipelines its K loop with tl.range(num_stages=NUM_STAGES), as benchmarked
        _swap_kernel[(tiles_n, tiles_m, split)](*args, M, N, K, BLOCK_N=cfg["BLOCK_N"], BLOCK_T=cfg["BLOCK_T"],
                                                SPLIT_K=split, NUM_STAGES=cfg["num_stages"],
                                                num_warps=cfg["num_warps"])
    return out


def prepare(qweight, scales, zeros):
    """Repack the words (same size, group-strided order) and zero the split-K tile counters."""
    counters = torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device)
    return {"words": repack_group_strided(qweight), "scales": scales, "zeros": zeros, "counters": counters}


def run(state, x):
    return w4a16_gemm(x, state["words"], state["scales"], state["zeros"], state["counters"])
