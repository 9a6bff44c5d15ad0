"""Library line: cuBLASLt's FP8 GEMM through torch._scaled_mm (on the CPU, PyTorch's own kernel)."""

import torch

LABEL = "torch._scaled_mm (cuBLASLt FP8 on a GPU)"


def library_version():
    if torch.cuda.is_available():
        return f"cuBLASLt from CUDA {torch.version.cuda}, torch {torch.__version__}"
    return f"torch {torch.__version__} CPU _scaled_mm"


def prepare(b, b_scale):
    return {"b_t": b.T, "b_scale": b_scale}  # a column-major view of B: the layout cuBLASLt's fp8 path takes


def run(state, a, a_scale):
    return torch._scaled_mm(a, state["b_t"], scale_a=a_scale, scale_b=state["b_scale"], out_dtype=torch.bfloat16)
