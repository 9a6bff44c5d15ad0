"""Library line: torch.topk (PyTorch's CUDA radix-select top-k), indices of the sorted top k."""

import torch

LABEL = "torch.topk (PyTorch CUDA kernel)"


def library_version():
    return f"torch {torch.__version__}" + (f", CUDA {torch.version.cuda}" if torch.cuda.is_available() else " CPU")


def run(state, x, k):
    return torch.topk(x, k, dim=1, largest=True, sorted=True).indices
