"""gemlite's packing and dequantisation reimplemented in pure torch (no gemlite import), so that the CPU can
check the library line's static repack (solutions/baselines/library.py: unpack_values, gemlite_pack_arguments)
against the problem's reference (tests/problems/test_w4a16_gemlite.py).

Sources: gemlite 0.6.0.post2 (PyPI sdist, github.com/mobiusml/gemlite), Apache-2.0:
  * gemlite/core.py, GemLiteLinearTriton.pack(W_q, scales, zeros, fma_mode, ...): W_q is the unpacked
    (out_features, in_features) = (N, K) uint8 matrix of 4-bit values; on CUDA it goes to
    bitpack.pack_weights_over_cols_triton (on the CPU the pure-torch twin pack_weights_over_cols_torch),
    packing_bitwidth 32, transpose=True, then .contiguous(): a (K // 8, N) int32 tensor in which value k sits
    at bits 4 * (k % 8) of word k // 8. Scales and zeros are taken as (N, K // group) and stored as
    `.view((N, -1)).t()`, i.e. (K // group, N). With fma_mode=False and tensor zeros, W_group_mode = 3.
  * gemlite/triton_kernels/gemm_kernels.py, gemm_INT_kernel (and the GEMV / split-K kernels alike): the
    word of value k is b_ptr + (k // elements_per_sample) * stride_bk + n * stride_bn, its shift
    (k % elements_per_sample) * W_nbits; the group row of scales and zeros is k // group_size.
  * gemlite/triton_kernels/utils.py, dequantize(): (b >> q_shift) & unpack_mask, then for W_group_mode 3
    (b.to(meta_dtype) - zeros) * scales, meta_dtype = the scales' dtype (bf16 here).

So gemlite's 4-bit layout is GPTQ's qweight layout, the problem's own: the packed words gemlite builds from
the unpacked values are the problem's qweight bit for bit (the test proves it), and mode 3's
(q - zero) * scale is the problem's dequantisation. The repack (in library.py) is therefore:
  * qweight (K // 8, N) int32 -> q (N, K) uint8, unpacked and transposed, because pack() only takes unpacked
    uint8 values (it packs them again); a transient K * N bytes (2x the packed weight), freed after prepare;
    gemlite keeps its own packed copy, (K // 8, N) int32 = K * N / 2 bytes, equal to qweight;
  * scales, zeros (K // 128, N) bf16 -> their transposes (N, K // 128), views (no copy): pack() transposes
    them back to the original contiguous (K // 128, N) tensors, which gemlite then holds (aliased);
  * fma_mode=False: gemlite's default fma_mode=True would store zeros as -zero * scale rounded to bf16 and
    dequantise q * scale + that, which differs from (q - zero) * scale by that rounding; mode 3 keeps the
    contract's formula. Each dequantised weight is then (q - zero) * scale rounded once to bf16, and the
    product with x accumulates in fp32 (GEMLITE_ACC_DTYPE[BF16] = FP32).
"""

import torch

GROUP_SIZE = 128
W_NBITS = 4
PACKING_BITWIDTH = 32
ELEMENTS_PER_SAMPLE = PACKING_BITWIDTH // W_NBITS  # 8 values per int32 word


def pack_over_cols(W_q: torch.Tensor) -> torch.Tensor:
    """gemlite's packing of (N, K) 4-bit values, reimplemented: bitpack.pack_weights_over_cols_torch(W_q,
    W_nbits=4, packing_bitwidth=32, transpose=True) followed by pack()'s .contiguous(). Column j of W_q goes
    to word j // 8 at shift 4 * (j % 8), OR-ed in int32 (bit 31 set gives a negative word, as in gemlite)."""
    W_q = W_q.to(torch.int32)
    out = torch.zeros((W_q.shape[0], W_q.shape[1] // ELEMENTS_PER_SAMPLE), dtype=torch.int32, device=W_q.device)
    for j in range(W_q.shape[1]):
        out[:, j // ELEMENTS_PER_SAMPLE] |= W_q[:, j] << ((j % ELEMENTS_PER_SAMPLE) * W_NBITS)
    return out.t().contiguous()  # (K // 8, N)


def pack_meta(meta_nk: torch.Tensor, out_features: int) -> torch.Tensor:
    """pack()'s handling of scales (and of zeros with fma_mode=False): meta.view((N, -1)).t().contiguous()."""
    return meta_nk.view((out_features, -1)).t().contiguous()


def gemlite_dequantize(W_q, scales, zeros, group_size=GROUP_SIZE, dtype=torch.float64):
    """W (K, N) as gemlite's kernels read the packed tensors (W_group_mode 3), in `dtype`:
    b = (W_q[k // 8, n] >> 4 * (k % 8)) & 0xF;  W[k, n] = (b - zeros[k // group_size, n]) * scales[...].
    With dtype=torch.bfloat16 each step rounds to bf16 as the kernel's meta_dtype arithmetic does."""
    K = W_q.shape[0] * ELEMENTS_PER_SAMPLE
    k = torch.arange(K, device=W_q.device)
    q_shift = ((k % ELEMENTS_PER_SAMPLE) * W_NBITS).to(torch.int32)[:, None]
    b = (W_q[k // ELEMENTS_PER_SAMPLE] >> q_shift) & ((1 << W_NBITS) - 1)  # int32 (K, N)
    group = k // group_size
    return (b.to(dtype) - zeros[group].to(dtype)) * scales[group].to(dtype)
