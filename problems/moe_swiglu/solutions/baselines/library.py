"""Library line: torch._grouped_mm (CUTLASS grouped GEMM on Hopper) over gate and up at once, then SwiGLU.

prepare() concatenates each expert's gate and up weights into one (E, H, 2I) operand, stored column-major
per expert (the layout the grouped GEMM's B operand takes without a copy), so one grouped product makes
the (rows, 2I) intermediate; SiLU * up is one more elementwise kernel.
"""

import torch

LABEL = "torch._grouped_mm (CUTLASS grouped GEMM) + SiLU * up"


def library_version():
    if torch.cuda.is_available():
        return f"torch {torch.__version__} _grouped_mm, CUDA {torch.version.cuda}"
    return f"torch {torch.__version__} CPU _grouped_mm"


def prepare(w_gate, w_up):
    w = torch.cat([w_gate, w_up], dim=2)  # (E, H, 2I)
    del w_gate, w_up
    return {"w": w.transpose(1, 2).contiguous().transpose(1, 2), "I": w.shape[2] // 2}


def swiglu_halves(h: torch.Tensor, I: int) -> torch.Tensor:
    return torch.nn.functional.silu(h[:, :I]) * h[:, I:]


def run(state, x, offsets):
    h = torch._grouped_mm(x, state["w"], offs=offsets[1:])
    return swiglu_halves(h, state["I"])
