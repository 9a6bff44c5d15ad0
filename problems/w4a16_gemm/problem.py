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

from scoring.call_checks import freivalds_stats, random_signs, rows_per_block, signed_row_sums

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


# -- per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call) ----------------------------------
VERIFY_METHOD = ("freivalds from the left: r^T out against (r^T x) W for 2 random ±1 vectors r over the M rows "
                 "(1 when M = 1: the exact row), fp64 elementwise products and sums, W applied group by group "
                 "from the packed weight (scale * (sum_k u_k q_kn - zero * sum_k u_k)); fails when "
                 "||r^T out - r^T ref|| / ||r^T ref|| exceeds 2x the normwise tolerance")

# Left probes (scoring/call_checks.py: why left): 1% of rows zeroed or stale (normwise 0.1..0.14 for
# unit-variance rows, 10x the bound) fails on every call.
PROBES = 2
# The estimate may reach 2x the normwise tolerance. Errors and outputs spread over the N >= 16 columns, so
# the squared ratio is about a ratio of chi-squares with 2N >= 32 degrees of freedom each: an output exactly
# at the tolerance fails with P(F(32, 32) > 4) = 9e-5 on the smallest CPU shape and < 1e-50 for N >= 256 on
# the GPU (at M = 1 the ratio is exact); honest kernels sit near 1/3 of the tolerance, P = 7e-17 there.
SAFETY = 2.0
CHUNK_ELEMENTS = 2**25  # fp64 products of 256 MiB at most: 0.32 GiB of extra memory at the peak (H100)
# Cost on decode_m7_70b_gate_up (N=57344, K=8192): the packed weight unpacked to bf16 (470M values, ~18
# bytes each) and, per probe, one fp64 product pass (~18 bytes per value): ~26 GB, measured 13 ms on an H100
# against a 0.075 ms call at the roofline. Checking a GEMV means reading its weight, and elementwise fp64
# passes move ~100x the packed int4 bytes; x and out add little (M x K and M x N). No M*N*K work.


def _unpack_bf16(words):
    """unpack_int4 in int32 arithmetic and to bf16 (0..15 are exact): half and a quarter of its int64 bytes.
    The arithmetic shift of a negative word extends its sign above the nibble, which the mask drops."""
    shifts = 4 * torch.arange(PACK, dtype=torch.int32, device=words.device)
    nibbles = (words[:, None, :] >> shifts[None, :, None]) & 0xF
    return nibbles.to(torch.bfloat16).reshape(-1, words.shape[1])


def _times_packed_weight(u, qweight, scales, zeros):
    """u @ W in fp64, (probes, N), W never materialised: per group g of 128 rows,
    sum_k u_k W[k, n] = scale[g, n] * (sum_k u_k q[k, n] - zero[g, n] * sum_k u_k)."""
    groups, N = scales.shape
    per_chunk = rows_per_block(CHUNK_ELEMENTS, GROUP_SIZE * N)
    total = torch.zeros((u.shape[0], N), dtype=torch.float64, device=u.device)
    for g0 in range(0, groups, per_chunk):
        g1 = min(groups, g0 + per_chunk)
        q = _unpack_bf16(qweight[g0 * GROUP_SIZE // PACK:g1 * GROUP_SIZE // PACK]).reshape(g1 - g0, GROUP_SIZE, N)
        for probe, u_probe in enumerate(u[:, g0 * GROUP_SIZE:g1 * GROUP_SIZE].reshape(-1, g1 - g0, GROUP_SIZE)):
            dots = (q * u_probe[:, :, None]).sum(1)
            total[probe] += ((dots - zeros[g0:g1] * u_probe.sum(1, keepdim=True)) * scales[g0:g1]).sum(0)
    return total


def verify_call(out, weights, inputs, gen, tolerance):
    signs = random_signs(out.shape[0], PROBES, gen, out.device)
    probed_ref = _times_packed_weight(signed_row_sums(inputs["x"], signs, CHUNK_ELEMENTS), weights["qweight"],
                                      weights["scales"], weights["zeros"])
    return freivalds_stats(out, signed_row_sums(out, signs, CHUNK_ELEMENTS), probed_ref, tolerance, SAFETY,
                           CHUNK_ELEMENTS)
