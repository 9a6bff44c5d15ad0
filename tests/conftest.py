"""Shared test configuration: GPU-only tests skip cleanly where torch sees no CUDA device."""

import pytest


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config, items):
    if _cuda_available():
        return
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU (none visible to torch here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip_gpu)
