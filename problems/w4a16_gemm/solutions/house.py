"""House W4A16 GEMM: out = x @ W, W dequantised from packed int4 inside the GEMM's main loop.

Preparation (once per weight, not scored) repacks GPTQ's words without changing their size: within each
group of 128 rows of K, word row r (0..15) of the group keeps in nibble j the value of row 16 * j + r
("group-strided" order). Unpacking nibble j of a (16, BLOCK_N) tile of words then yields rows
16j .. 16j + 15 of the group as a ready (16, BLOCK_N) tile: no reshape or interleave in the kernel,
and every packed word crosses DRAM exactly once.

Two Triton kernels, one output tile per program, one group of 128 rows of K per loop step:
* `_gemv_kernel` (M = 1): CUDA-core multiply-adds on (16, BLOCK_N) fp32 tiles. A nibble becomes a float
  with two integer ops and one add (OR with the bits of 2^23, subtract 2^23); the zero point and scale
  are applied once per group and column: s * (sum_k x_k q_k - z * sum_k x_k).
* `_mma_kernel` (M > 1): per nibble, the (16, BLOCK_N) tile is dequantised to bf16 (q * s - z * s, one
  fused multiply-add in fp32) and a (BLOCK_M, 16) x (16, BLOCK_N) tensor-core dot accumulates it in
  fp32. (A variant that fed the dots 128 + q made exact by OR-ing in bf16 exponent bits and corrected
  each group's sum afterwards measured slower in every M class: NOTES.md.)
Few output tiles (decode) split K over SPLIT_K programs per tile: each writes an fp32 partial and bumps a
per-tile counter; the last to arrive sums the partials, writes the bf16 tile and resets the counter
(one kernel, no memset). Counters live in the prepared state.

Configurations come from a small rule on the shape (no autotuning), measured on an H100 (NOTES.md).
"""

import torch
import triton
import triton.language as tl

LABEL = "house Triton kernel (fused int4 dequant, GEMV / bf16 MMA, split-K)"
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
def _gemv_kernel(x_ptr, words_ptr, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, N, K,
                 BLOCK_N: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < N
    offs_r = tl.arange(0, 16)
    groups = K // 128
    per_split = tl.cdiv(groups, SPLIT_K)
    g_first = pid_k * per_split
    g_last = tl.minimum(g_first + per_split, groups)
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
            q_j = (((words >> (4 * j)) & 0xF) | 0x4B000000).to(tl.float32, bitcast=True) - 8388608.0
            dot += x_j[:, None] * q_j
            x_sum += x_j
        acc += dot * scale[None, :] - x_sum[:, None] * (zero * scale)[None, :]
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
    groups = K // 128
    per_split = tl.cdiv(groups, SPLIT_K)
    g_first = pid_k * per_split
    g_last = tl.minimum(g_first + per_split, groups)
    x_rows = x_ptr + offs_m.to(tl.int64)[:, None] * K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for g in range(g_first, g_last):
        words = tl.load(words_ptr + (g * 16 + offs_r).to(tl.int64)[:, None] * N + offs_n[None, :],
                        mask=mask_n[None, :], other=0)
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero = tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero_scaled = zero * scale
        for j in tl.static_range(8):
            a_j = tl.load(x_rows + (g * 128 + 16 * j + offs_r)[None, :], mask=mask_m[:, None], other=0.0)
            q_j = ((words >> (4 * j)) & 0xF).to(tl.float32)
            acc = tl.dot(a_j, (q_j * scale[None, :] - zero_scaled[None, :]).to(tl.bfloat16), acc)
    out_offsets = offs_m.to(tl.int64)[:, None] * N + offs_n[None, :]
    tile = pid_m * tl.num_programs(0) + pid_n
    _finish(acc, out_offsets, mask_m[:, None] & mask_n[None, :], out_ptr, partial_ptr, counter_ptr, tile, pid_k,
            M * N, SPLIT_K)


def pick_config(M: int, N: int, K: int, sm_count: int) -> dict:
    """Kernel, tile shape, pipeline depth and K split by problem shape (measured on an H100: NOTES.md)."""
    if M == 1:
        cfg, min_programs = dict(KERNEL="gemv", BLOCK_N=64, num_warps=4, num_stages=3), 4 * sm_count
    elif M <= 64:
        cfg = dict(KERNEL="mma", BLOCK_M=max(16, triton.next_power_of_2(M)), BLOCK_N=64, num_warps=4, num_stages=3)
        min_programs = 2 * sm_count
    else:
        cfg = dict(KERNEL="mma", BLOCK_M=128, BLOCK_N=128, num_warps=8, num_stages=3)
        min_programs = 0  # split K never pays here: fp32 partials of a large M cost as much as the weight
    tiles = triton.cdiv(M, cfg.get("BLOCK_M", 1)) * triton.cdiv(N, cfg["BLOCK_N"])
    groups = K // GROUP_SIZE
    split = 1
    # Too few programs to keep every SM streaming: split K (keeping >= 4 groups per split).
    while tiles * split < min_programs and split < 8 and groups // (2 * split) >= 4:
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
    kernel, split = cfg.pop("KERNEL"), cfg.pop("SPLIT_K", 1)
    out = torch.empty((M, N), dtype=torch.bfloat16, device=x.device)
    block_m = 1 if kernel == "gemv" else cfg["BLOCK_M"]
    tiles_n, tiles_m = triton.cdiv(N, cfg["BLOCK_N"]), triton.cdiv(M, block_m)
    if split > 1:
        partial = torch.empty((split, M, N), dtype=torch.float32, device=x.device)
        if counters.numel() < tiles_n * tiles_m:
            raise ValueError(f"{tiles_n * tiles_m} output tiles need more split-K counters than prepared")
    else:
        partial = out  # unused
    common = dict(SPLIT_K=split)
    if kernel == "gemv":
        assert M == 1, "the GEMV kernel computes one row"
        _gemv_kernel[(tiles_n, split)](x, words, scales, zeros, out, partial, counters, N, K, **cfg, **common)
    else:
        _mma_kernel[(tiles_n, tiles_m, split)](x, words, scales, zeros, out, partial, counters, M, N, K,
                                               **cfg, **common)
    return out


def prepare(qweight, scales, zeros):
    """Repack the words (same size, group-strided order) and zero the split-K tile counters."""
    counters = torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device)
    return {"words": repack_group_strided(qweight), "scales": scales, "zeros": zeros, "counters": counters}


def run(state, x):
    return w4a16_gemm(x, state["words"], state["scales"], state["zeros"], state["counters"])
