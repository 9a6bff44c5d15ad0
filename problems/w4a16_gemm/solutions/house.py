"""House W4A16 GEMM: out = x @ W, W dequantised from packed int4 inside the GEMM's main loop.

One Triton kernel. Each program owns a (BLOCK_M, BLOCK_N) output tile and walks K in steps of BLOCK_K
(a divisor of the group size, so each step has one scale and one zero point per column). Per step it
loads the packed words as a (BLOCK_K / 8, BLOCK_N) int32 tile (coalesced along N), unpacks the eight
nibbles of each word with one broadcast shift into a (BLOCK_K, BLOCK_N) tile, dequantises it with one
fused multiply-add per element (q * s - z * s, in fp32, rounded to bf16) and feeds it to a bf16 tensor-
core dot that accumulates in fp32. The weight crosses DRAM once, packed: 4.25 bits per element with the
scales and zeros.

Decode shapes have few output tiles, so K can be split over SPLIT_K programs per tile: each writes an
fp32 partial tile to a workspace and bumps a per-tile counter; the last to arrive adds the partials and
writes the bf16 tile, then resets the counter for the next call (one kernel, no memset, no extra
launch). The counters live in the prepared state.

Configurations come from a small rule on the shape (no autotuning), measured on an H100
(problems/w4a16_gemm/NOTES.md).
"""

import torch
import triton
import triton.language as tl

LABEL = "house Triton kernel (fused int4 dequant + bf16 MMA, split-K)"
GROUP_SIZE = 128


@triton.jit
def _to_bf16(x, EMULATE_RNE: tl.constexpr):
    """fp32 -> bf16 rounded to nearest even. Triton's CPU interpreter truncates this cast (measured: a
    2^-9 mean relative bias), so there the rounding is done on the bits; on a GPU the cast is native."""
    if EMULATE_RNE:
        bits = x.to(tl.uint32, bitcast=True)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        x = bits.to(tl.float32, bitcast=True)
    return x.to(tl.bfloat16)


@triton.jit
def _w4a16_kernel(x_ptr, qweight_ptr, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP: tl.constexpr,
                  SPLIT_K: tl.constexpr, EMULATE_RNE: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = offs_m < M
    mask_n = offs_n < N
    steps = K // BLOCK_K
    steps_per_split = tl.cdiv(steps, SPLIT_K)
    k_first = pid_k * steps_per_split * BLOCK_K
    k_last = tl.minimum(k_first + steps_per_split * BLOCK_K, K)

    offs_k = tl.arange(0, BLOCK_K)
    offs_word = tl.arange(0, BLOCK_K // 8)
    shifts = tl.arange(0, 8) * 4
    x_rows = x_ptr + offs_m.to(tl.int64)[:, None] * K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_first, k_last, BLOCK_K):
        a = tl.load(x_rows + (k0 + offs_k)[None, :], mask=mask_m[:, None], other=0.0)
        words = tl.load(qweight_ptr + (k0 // 8 + offs_word).to(tl.int64)[:, None] * N + offs_n[None, :],
                        mask=mask_n[None, :], other=0)
        q = (words[:, None, :] >> shifts[None, :, None]) & 0xF  # (BLOCK_K / 8, 8, BLOCK_N): row k = 8 * word + nibble
        q = tl.reshape(q, (BLOCK_K, BLOCK_N))
        group = k0 // GROUP
        scale = tl.load(scales_ptr + group * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero = tl.load(zeros_ptr + group * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        w = _to_bf16(q.to(tl.float32) * scale[None, :] - (zero * scale)[None, :], EMULATE_RNE)
        acc = tl.dot(a, w, acc)

    out_offsets = offs_m.to(tl.int64)[:, None] * N + offs_n[None, :]
    out_mask = mask_m[:, None] & mask_n[None, :]
    if SPLIT_K == 1:
        tl.store(out_ptr + out_offsets, _to_bf16(acc, EMULATE_RNE), mask=out_mask)
    else:
        partial_base = partial_ptr + pid_k.to(tl.int64) * M * N
        tl.store(partial_base + out_offsets, acc, mask=out_mask)
        tl.debug_barrier()  # every thread's partial is written before the counter moves
        tile = pid_m * tl.num_programs(0) + pid_n
        arrived = tl.atomic_add(counter_ptr + tile, 1, sem="acq_rel")
        if arrived == SPLIT_K - 1:  # the last split of this tile: reduce and write
            total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for split in tl.static_range(SPLIT_K):
                split_base = partial_ptr + tl.full((), split, tl.int64) * M * N
                total += tl.load(split_base + out_offsets, mask=out_mask, other=0.0, cache_modifier=".cg")
            tl.store(out_ptr + out_offsets, _to_bf16(total, EMULATE_RNE), mask=out_mask)
            tl.atomic_xchg(counter_ptr + tile, 0)  # ready for the next call


def pick_config(M: int, N: int, K: int, sm_count: int) -> dict:
    """Tile shape, pipeline depth and K split by problem shape (measured on an H100: NOTES.md)."""
    if M <= 16:
        cfg = dict(BLOCK_M=16, BLOCK_N=64, BLOCK_K=128, num_warps=4, num_stages=4)
    elif M <= 64:
        cfg = dict(BLOCK_M=triton.next_power_of_2(M), BLOCK_N=64, BLOCK_K=128, num_warps=4, num_stages=4)
    else:
        cfg = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=4)
    tiles = triton.cdiv(M, cfg["BLOCK_M"]) * triton.cdiv(N, cfg["BLOCK_N"])
    steps = K // cfg["BLOCK_K"]
    split = 1
    while M <= 64 and tiles * split < 2 * sm_count and split < 8 and steps // (2 * split) >= 4:
        # Too few tiles to fill every SM twice: split K (>= 4 steps per split). Only for small M, where
        # the fp32 partials are small next to the weight; for large M they would cost as much as it.
        split *= 2
    cfg["SPLIT_K"] = split
    return cfg


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # Triton's CPU interpreter: a few 'SMs' so that small shapes exercise split-K


def w4a16_gemm(x, qweight, scales, zeros, config=None, counters=None):
    M, K = x.shape
    N = qweight.shape[1]
    cfg = dict(config or pick_config(M, N, K, _sm_count(x.device)))
    split = cfg.pop("SPLIT_K", 1)
    grid = (triton.cdiv(N, cfg["BLOCK_N"]), triton.cdiv(M, cfg["BLOCK_M"]), split)
    out = torch.empty((M, N), dtype=torch.bfloat16, device=x.device)
    if split > 1:
        partial = torch.empty((split, M, N), dtype=torch.float32, device=x.device)
        if counters is None or counters.numel() < grid[0] * grid[1]:
            counters = torch.zeros(grid[0] * grid[1], dtype=torch.int32, device=x.device)
    else:
        partial = counters = out  # unused
    _w4a16_kernel[grid](x, qweight, scales, zeros, out, partial, counters, M, N, K, GROUP=GROUP_SIZE,
                        SPLIT_K=split, EMULATE_RNE=not x.is_cuda, **cfg)
    return out


def prepare(qweight, scales, zeros):
    """The weight stays in its packed layout; only the split-K tile counters are allocated (zeroed)."""
    counters = torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device)
    return {"qweight": qweight, "scales": scales, "zeros": zeros, "counters": counters}


def run(state, x):
    return w4a16_gemm(x, state["qweight"], state["scales"], state["zeros"], counters=state["counters"])
