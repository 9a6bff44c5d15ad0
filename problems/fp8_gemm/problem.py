"""FP8 GEMM: inputs, reference, per-call verification and roofline formulas (data in problem.toml)."""

import torch

from scoring.call_checks import freivalds_stats, random_signs, row_dots, signed_row_sums

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0


def flops(shape):
    return 2 * shape["M"] * shape["N"] * shape["K"]


def bytes_moved(shape):
    M, N, K = shape["M"], shape["N"], shape["K"]
    return M * K + N * K + 2 * M * N + 2 * 4  # fp8 A and B, bf16 C, two fp32 scales


def output_spec(shape):
    return (shape["M"], shape["N"]), torch.bfloat16


def _quantize(values: torch.Tensor):
    """Per-tensor e4m3 quantisation as inference stacks do it: scale the absolute max onto 448."""
    scale = values.abs().amax().clamp(min=1e-12) / FP8_MAX
    return (values / scale).to(FP8), scale.to(torch.float32).reshape(())


def _operand(rows, cols, std, gen, device):
    return _quantize(torch.randn(rows, cols, generator=gen, device=device) * std)


# Operand spreads differ (4x) so that a kernel using the wrong scale, or one scale twice, is wrong;
# together they make C unit-variance for every K, so zeros or a copied input fail the tolerance.
def make_weights(shape, gen, device):
    b, b_scale = _operand(shape["N"], shape["K"], 0.5 * shape["K"] ** -0.25, gen, device)
    return {"b": b, "b_scale": b_scale}


def make_inputs(shape, weights, gen, device):
    a, a_scale = _operand(shape["M"], shape["K"], 2.0 * shape["K"] ** -0.25, gen, device)
    return {"a": a, "a_scale": a_scale}


def reference(weights, inputs):
    a = inputs["a"].to(torch.float64)
    b = weights["b"].to(torch.float64)
    scale = inputs["a_scale"].double() * weights["b_scale"].double()
    return (a @ b.T) * scale


# -- per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call) ----------------------------------
VERIFY_METHOD = ("freivalds from the left: r^T C against ((r^T A) B^T) * a_scale * b_scale for 2 random ±1 "
                 "vectors r over the M rows (1 when M = 1: the exact row), fp64 elementwise products and sums; "
                 "fails when ||r^T C - r^T ref|| / ||r^T ref|| exceeds 2x the normwise tolerance")

# Left probes (scoring/call_checks.py: why left): 1% of rows zeroed or stale (normwise 0.1..0.14 for
# unit-variance rows, 10x the bound) fails on every call.
PROBES = 2
# The estimate may reach 2x the normwise tolerance. Errors and outputs spread over the N >= 16 columns, so
# the squared ratio is about a ratio of chi-squares with 2N >= 32 degrees of freedom each: an output exactly
# at the tolerance fails with P(F(32, 32) > 4) = 9e-5 on the smallest CPU shape and < 1e-50 for N >= 256 on
# the GPU (at M = 1 the ratio is exact); honest kernels sit near 1/3 of the tolerance (bf16 rounding), where
# P(F(32, 32) > 4 / 0.35^2) = 7e-17.
SAFETY = 2.0
CHUNK_ELEMENTS = 2**25  # fp64 products of 256 MiB at most: 0.55 GiB of extra memory at the peak (H100)
# Cost on mlp_up_rect (M=8192, N=28672, K=4096): per probe one fp64 product pass over C (235M elements),
# A (34M) and B (117M), ~18 bytes moved per element and probe plus the widening of A and B: ~14 GB, measured
# 7.6 ms on an H100 (the call: 1.9 TFLOP, 1 ms at the roofline). No M*N*K work.
# e4m3 widens exactly to bf16, which the products promote to fp64 (fp8 has no type promotion); every operand
# of the probe sums goes through it, the bf16 output too (a no-op there).
WIDEN = torch.bfloat16


def verify_call(out, weights, inputs, gen, tolerance):
    signs = random_signs(out.shape[0], PROBES, gen, out.device)
    probed_a = signed_row_sums(inputs["a"], signs, CHUNK_ELEMENTS, WIDEN)
    probed_ref = (row_dots(weights["b"], probed_a, CHUNK_ELEMENTS, WIDEN)
                  * (inputs["a_scale"].double() * weights["b_scale"].double()))
    return freivalds_stats(out, signed_row_sums(out, signs, CHUNK_ELEMENTS, WIDEN), probed_ref, tolerance,
                           SAFETY, CHUNK_ELEMENTS)
