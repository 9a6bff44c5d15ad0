"""Round-2 candidates: the swapped-operand kernel with TMA loads and a cheaper dequantisation.

Why (SASS of the round-1 house kernels, compiled here for sm_90 with Triton's own nvdisasm): the swap
kernel's loop spends ~1,900 instructions per 64 weights a thread, mostly address arithmetic and
per-element loads of x (IMAD/IADD3/LEA ~600, LDG 132, STS 65 per loop), and the dequantisation costs an
I2FP and an extra FADD per weight. Here:
* x and the words arrive by TMA (host tensor descriptors): one bulk copy per tile, pipelined by Triton
  over the K loop, no per-thread address arithmetic; tokens past M are zero-filled by the copy.
* The words are prepared transposed, (N, K / 8) in the group-strided order (nibble j of word r of a group
  holds row 16 j + r), so a (BLOCK_N, 16) word tile is the A operand tile of eight K = 16 dots as is.
* `EXACT_FFMA`: nibble j is moved to bits 16..19 (one shift, none for j = 4) and OR-ed with the bits of
  128.0, giving the float 128 + q; then (128 + q) * s - (128 + z) * s is one FFMA whose product and
  difference are exact in fp32 (8-bit by 8-bit significands), so the bf16 weight is (q - z) * s rounded
  once, as the honest method; no int-to-float conversion. Otherwise the round-1 dequantisation.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor
from variants import _finish, _group_range, _tile_origin, repack_group_strided, split_for


@triton.jit
def _dequant_nibble(words, j: tl.constexpr, scale, offset, EXACT_FFMA: tl.constexpr):
    """Rows 16 j .. 16 j + 15 of the group as bf16 from a (BLOCK_N, 16) word tile; scale, offset (BLOCK_N,)
    fp32 with offset = (128 + zero) * scale (EXACT_FFMA) or zero * scale."""
    if EXACT_FFMA:
        if j < 4:
            at_16 = words << (16 - 4 * j)
        elif j == 4:
            at_16 = words
        else:
            at_16 = words >> (4 * j - 16)  # the sign bits this drags in are masked off below
        biased = ((at_16 & 0x000F0000) | 0x43000000).to(tl.float32, bitcast=True)  # 128 + q
        return (biased * scale[:, None] - offset[:, None]).to(tl.bfloat16)
    else:
        q = ((words >> (4 * j)) & 0xF).to(tl.float32)
        return (q * scale[:, None] - offset[:, None]).to(tl.bfloat16)


@triton.jit
def _swap_tma_kernel(x_desc, words_desc, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, M, N, K,
                     BLOCK_N: tl.constexpr, BLOCK_T: tl.constexpr, SPLIT_K: tl.constexpr,
                     NUM_STAGES: tl.constexpr, EXACT_FFMA: tl.constexpr, WARP_SPECIALIZE: tl.constexpr = False):
    """One (BLOCK_N columns of W) x (BLOCK_T tokens) tile of out^T = W^T @ x^T, one group per step."""
    n0, t0, offs_n, offs_t, pid_k = _tile_origin(BLOCK_N, BLOCK_T)
    mask_n = offs_n < N
    g_first, g_last = _group_range(pid_k, K, SPLIT_K)
    acc = tl.zeros((BLOCK_N, BLOCK_T), dtype=tl.float32)
    for g in tl.range(g_first, g_last, num_stages=NUM_STAGES, warp_specialize=WARP_SPECIALIZE):
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero = tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        if EXACT_FFMA:
            offset = (zero + 128.0) * scale
        else:
            offset = zero * scale
        words = words_desc.load([n0, g * 16])  # (BLOCK_N, 16 words of the group)
        for j in tl.static_range(8):
            w_j = _dequant_nibble(words, j, scale, offset, EXACT_FFMA)
            x_j = x_desc.load([t0, g * 128 + 16 * j])  # (BLOCK_T, 16) bf16
            acc = tl.dot(w_j, x_j.T, acc)
    out_offsets = offs_t.to(tl.int64)[None, :] * N + offs_n[:, None]  # out[t, n] from the tile's [n, t]
    tile = tl.program_id(1) * tl.num_programs(0) + tl.program_id(0)
    _finish(acc, out_offsets, mask_n[:, None] & (offs_t < M)[None, :], out_ptr, partial_ptr, counter_ptr, tile,
            pid_k, M * N, SPLIT_K)


@triton.jit
def _swap_tk_kernel(x_desc, words_desc, scales_ptr, zeros_ptr, out_ptr, partial_ptr, counter_ptr, M, N, K,
                    BLOCK_N: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr,
                    NUM_STAGES: tl.constexpr):
    """The same tile with one K = BLOCK_K dot per step (64 or 128 rows of one group) on words in GPTQ's own
    order, transposed to (N, K / 8): the dequantised (BLOCK_N, BLOCK_K) tile is built from a
    [n, word, half, nibble] tensor whose merge into K = 8 word + 4 half + nibble is in-register.
    Nibble p of a 16-bit half is masked in place and OR-ed with the exponent of 2^(23 - 4 p): the float is
    2^(23 - 4 p) + q exactly, and subtracting 2^(23 - 4 p) gives q (LOP3 + FADD; no shift, no I2F); then
    q * s - z * s is one exact FFMA."""
    n0, t0, offs_n, offs_t, pid_k = _tile_origin(BLOCK_N, BLOCK_T)
    mask_n = offs_n < N
    STEPS_PER_GROUP: tl.constexpr = 128 // BLOCK_K
    g_first, g_last = _group_range(pid_k, K, SPLIT_K)
    nibble = tl.arange(0, 4)
    masks = (0xF << (4 * nibble))[None, None, None, :]
    magic_bits = ((150 - 4 * nibble) << 23)[None, None, None, :]
    magic = magic_bits.to(tl.float32, bitcast=True)
    acc = tl.zeros((BLOCK_N, BLOCK_T), dtype=tl.float32)
    for step in tl.range(g_first * STEPS_PER_GROUP, g_last * STEPS_PER_GROUP, num_stages=NUM_STAGES):
        g = step // STEPS_PER_GROUP
        scale = tl.load(scales_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32)
        zero_scaled = tl.load(zeros_ptr + g * N + offs_n, mask=mask_n, other=0.0).to(tl.float32) * scale
        words = words_desc.load([n0, step * (BLOCK_K // 8)])  # (BLOCK_N, BLOCK_K / 8)
        halves = tl.join(words, words >> 16)  # [n, word, half]; the sign bits of >> are masked below
        q = ((halves[:, :, :, None] & masks) | magic_bits).to(tl.float32, bitcast=True) - magic
        w = (q * scale[:, None, None, None] - zero_scaled[:, None, None, None]).to(tl.bfloat16)
        w = tl.reshape(w, (BLOCK_N, BLOCK_K))
        x_tile = x_desc.load([t0, step * BLOCK_K])  # (BLOCK_T, BLOCK_K)
        acc = tl.dot(w, x_tile.T, acc)
    out_offsets = offs_t.to(tl.int64)[None, :] * N + offs_n[:, None]
    tile = tl.program_id(1) * tl.num_programs(0) + tl.program_id(0)
    _finish(acc, out_offsets, mask_n[:, None] & (offs_t < M)[None, :], out_ptr, partial_ptr, counter_ptr, tile,
            pid_k, M * N, SPLIT_K)


def prepare(qweight, scales, zeros):
    """Words transposed to (N, K / 8) in the group-strided order, and zeroed split-K tile counters."""
    return {"words_t": repack_group_strided(qweight).T.contiguous(), "gptq_t": qweight.T.contiguous(),
            "scales": scales, "zeros": zeros,
            "counters": torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device)}


def run_variant(state, x, variant: str, BLOCK_N: int, num_warps: int, num_stages: int, BLOCK_T: int = 16,
                SPLIT_K=None, min_programs_per_sm: int = 2, BLOCK_K: int = 128):
    """variant: "tma" (round-1 dequantisation), "tma_ffma" (EXACT_FFMA) or "tk" (one K = BLOCK_K dot)."""
    M, K = x.shape
    N = state["scales"].shape[1]
    out = torch.empty((M, N), dtype=torch.bfloat16, device=x.device)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    tiles_n, tiles_t = triton.cdiv(N, BLOCK_N), triton.cdiv(M, BLOCK_T)
    split = SPLIT_K or split_for(tiles_n * tiles_t, K // 128, min_programs_per_sm * sms)
    partial = torch.empty((split, M, N), dtype=torch.float32, device=x.device) if split > 1 else out
    assert state["counters"].numel() >= tiles_n * tiles_t
    if variant == "tk":
        _swap_tk_kernel[(tiles_n, tiles_t, split)](
            TensorDescriptor.from_tensor(x, [BLOCK_T, BLOCK_K]),
            TensorDescriptor.from_tensor(state["gptq_t"], [BLOCK_N, BLOCK_K // 8]),
            state["scales"], state["zeros"], out, partial, state["counters"], M, N, K,
            BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T, BLOCK_K=BLOCK_K, SPLIT_K=split, NUM_STAGES=num_stages,
            num_warps=num_warps)
        return out
    x_desc = TensorDescriptor.from_tensor(x, [BLOCK_T, 16])
    words_desc = TensorDescriptor.from_tensor(state["words_t"], [BLOCK_N, 16])
    _swap_tma_kernel[(tiles_n, tiles_t, split)](
        x_desc, words_desc, state["scales"], state["zeros"], out, partial, state["counters"], M, N, K,
        BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T, SPLIT_K=split, NUM_STAGES=num_stages,
        EXACT_FFMA=variant in ("tma_ffma", "tma_ws"), WARP_SPECIALIZE=variant == "tma_ws", num_warps=num_warps)
    return out
