"""Library line: torch.softmax in fp32 (PyTorch's own CUDA softmax kernel), the fastest softmax in PyTorch.

It is not accurate to 1e-6 on these families (1e-6 to 1e-5 measured, problems/softmax/NOTES.md), so its
shapes are expected to come out 'incorrect': the line documents the accuracy a library call gives.
"""

import torch

LABEL = "torch.softmax fp32 (PyTorch CUDA kernel)"


def library_version():
    return f"torch {torch.__version__}" + (f", CUDA {torch.version.cuda}" if torch.cuda.is_available() else " CPU")


def run(state, x):
    return torch.softmax(x, dim=-1)
