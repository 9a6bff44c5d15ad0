"""FP8 GEMM: inputs, reference and roofline formulas (data in problem.toml)."""

import torch

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
