"""W4A16 GEMM: inputs, reference and roofline formulas (data in problem.toml).

Packing (GPTQ's `qweight` layout, documented in prompt.md):
  qweight: (K // 8, N) int32; the 4-bit value q[k, n] in 0..15 is bits 4*(k % 8) .. 4*(k % 8) + 3 of
           qweight[k // 8, n] (k % 8 == 0 in the lowest nibble; the int32 is read as two's complement);
  scales:  (K // 128, N) bf16;  zeros: (K // 128, N) bf16 (integers 0..15, as AWQ/GPTQ zero points);
  W[k, n] = (q[k, n] - zeros[k // 128, n]) * scales[k // 128, n];  out = x @ W, (M, N) bf16.
The weight is static (prepared once); x is fresh every call.

Bytes count the packed weight (K * N / 2), the scales and zeros, x and the output: a kernel that
materialises a bf16 W moves 5x the weight bytes and is scored against this formula.
"""

import torch

GROUP_SIZE = 128
PACK = 8  # int4 values per int32
VALUES = 16  # q and the zero points are drawn uniformly from 0..15
# E[(q - z)^2] for independent uniform q and z in 0..15: var(q) + var(z) = 2 * 255 / 12.
MEAN_SQUARE_Q_MINUS_Z = 42.5


def flops(shape):
    return 2 * shape["M"] * shape["N"] * shape["K"]


def bytes_moved(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    packed_weight = K * N // 2
    scales_and_zeros = 2 * 2 * (K // GROUP_SIZE) * N
    return 2 * M * K + packed_weight + scales_and_zeros + 2 * M * N


def output_spec(shape):
    return (shape["M"], shape["N"]), torch.bfloat16


def pack_int4(q: torch.Tensor) -> torch.Tensor:
    """(K, N) integers in 0..15 -> (K // 8, N) int32, value k in nibble k % 8 of word k // 8."""
    K, N = q.shape
    words = torch.zeros((K // PACK, N), dtype=torch.int64, device=q.device)
    for nibble in range(PACK):
        words |= q[nibble::PACK].to(torch.int64) << (4 * nibble)
    words = torch.where(words >= 2**31, words - 2**32, words)  # the same 32 bits, as a signed int32
    return words.to(torch.int32)


def unpack_int4(qweight: torch.Tensor) -> torch.Tensor:
    """(K // 8, N) int32 -> (K, N) int64 values in 0..15 (the inverse of pack_int4)."""
    shifts = 4 * torch.arange(PACK, device=qweight.device)
    nibbles = (qweight.to(torch.int64)[:, None, :] >> shifts[None, :, None]) & 0xF  # (K // 8, 8, N)
    return nibbles.reshape(-1, qweight.shape[1])


def dequantize(qweight, scales, zeros, dtype=torch.float64):
    """W (K, N) in `dtype`: (q - zero) * scale per group of 128 rows."""
    q = unpack_int4(qweight).to(dtype)
    expand = lambda t: t.to(dtype).repeat_interleave(GROUP_SIZE, dim=0)  # noqa: E731
    return (q - expand(zeros)) * expand(scales)


def make_weights(shape, gen, device):
    N, K = shape["N"], shape["K"]
    groups = K // GROUP_SIZE
    q = torch.randint(0, VALUES, (K, N), generator=gen, device=device)
    zeros = torch.randint(0, VALUES, (groups, N), generator=gen, device=device).to(torch.bfloat16)
    # Scales spread over [0.5, 1.5] x the value that makes the output unit-variance for this K.
    base = (MEAN_SQUARE_Q_MINUS_Z * K) ** -0.5
    scales = (base * (0.5 + torch.rand((groups, N), generator=gen, device=device))).to(torch.bfloat16)
    return {"qweight": pack_int4(q), "scales": scales, "zeros": zeros}


def make_inputs(shape, weights, gen, device):
    x = torch.randn((shape["M"], shape["K"]), generator=gen, device=device).to(torch.bfloat16)
    return {"x": x}


def reference(weights, inputs):
    w = dequantize(weights["qweight"], weights["scales"], weights["zeros"], torch.float64)
    return inputs["x"].to(torch.float64) @ w
