"""FP8 GEMM: inputs, reference, per-call verification and roofline formulas (data in problem.toml)."""

import math

import torch

from scoring.checking import CheckStats

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

# Left probes (r over the rows) because a kernel skips rows or tiles: a wrong row enters r^T E with its full
# norm whatever the signs, so 1% of rows zeroed or stale (normwise 0.1..0.14 for unit-variance rows, 10x the
# bound) fails on every call, and a tile spanning c columns shows with c * probes degrees of freedom.
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


def _row_blocks(matrix, probes):
    """(first row, block of rows) sized so that a (probes, rows, cols) fp64 product fits CHUNK_ELEMENTS."""
    step = max(1, CHUNK_ELEMENTS // (probes * matrix.shape[1]))
    for start in range(0, matrix.shape[0], step):
        # e4m3 widens exactly to bf16, which the products promote to fp64 (fp8 has no type promotion)
        yield start, matrix[start:start + step].to(torch.bfloat16)


def _signed_row_sums(matrix, signs):
    """signs @ matrix in fp64, (probes, cols): elementwise products summed, no GEMM."""
    total = torch.zeros((signs.shape[0], matrix.shape[1]), dtype=torch.float64, device=matrix.device)
    for start, block in _row_blocks(matrix, signs.shape[0]):
        total += (signs[:, start:start + block.shape[0], None] * block).sum(1)
    return total


def _row_dots(matrix, vectors):
    """matrix @ vectors^T in fp64, (probes, rows), without a GEMM."""
    blocks = _row_blocks(matrix, vectors.shape[0])
    return torch.cat([(block[None] * vectors[:, None, :]).sum(2) for _, block in blocks], dim=1)


def _nonfinite(out):
    """The failure for NaN/Inf in out: one isfinite pass, in blocks to bound its temporaries."""
    count = sum(int((~torch.isfinite(block)).sum().item()) for block in out.reshape(-1).split(CHUNK_ELEMENTS))
    return CheckStats(False, math.inf, math.inf, math.inf, count, count, f"{count} NaN/Inf elements")


def _freivalds_stats(out, probed_out, probed_ref, tolerance):
    """The normwise error estimated from the probes. A NaN or Inf anywhere in out makes its probe sums
    non-finite (fp64 sums of bf16 values cannot overflow), so the isfinite pass runs only then."""
    if not bool(torch.isfinite(probed_out).all()):
        return _nonfinite(out)
    normwise = float(torch.linalg.vector_norm(probed_out - probed_ref)
                     / torch.linalg.vector_norm(probed_ref).clamp(min=1e-300))
    bound = SAFETY * tolerance.normwise
    passed = normwise <= bound
    detail = "" if passed else (f"Freivalds estimate of the normwise error {normwise:.3g} over {probed_out.shape[0]} "
                                f"probe(s) exceeds {SAFETY:g} x the tolerance ({bound:g})")
    return CheckStats(passed, 0.0, 0.0, normwise, 0 if passed else 1, 0, detail)


def verify_call(out, weights, inputs, gen, tolerance):
    M = out.shape[0]
    signs = torch.randint(0, 2, (min(PROBES, M), M), generator=gen, device=out.device).to(torch.float64) * 2 - 1
    probed_a = _signed_row_sums(inputs["a"], signs)
    probed_ref = _row_dots(weights["b"], probed_a) * (inputs["a_scale"].double() * weights["b_scale"].double())
    return _freivalds_stats(out, _signed_row_sums(out, signs), probed_ref, tolerance)
