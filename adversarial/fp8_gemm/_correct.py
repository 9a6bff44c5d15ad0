"""The honest computation the adversaries of this folder build on, on either device.

On CUDA it is the fp8_gemm house kernel (loaded by path, as problems/fp8_gemm/solutions/wrong/_house.py
does, so this folder needs no copy of it); in the CPU profile it is an fp32 broadcast-and-sum with no
GEMM operator (the house kernel in Triton's interpreter would cost seconds per call). Either way an
adversary fails only for what it does on top of it.
"""

import importlib.util
from pathlib import Path

import torch

HOUSE_PATH = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm" / "solutions" / "house.py"
_loaded: dict[Path, object] = {}


def load_once(path: Path, module_name: str):
    """A solution file loaded by path on first use (so the CPU profile never imports Triton kernels it
    does not run), the same module afterwards."""
    if path not in _loaded:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[path] = module
    return _loaded[path]


def house():
    return load_once(HOUSE_PATH, "fp8_gemm_house_for_adversaries")


def correct(state, a, a_scale):
    if a.is_cuda:
        return house().fp8_gemm(a, state["b"], a_scale, state["b_scale"])
    products = a.float()[:, None, :] * state["b"].float()[None, :, :]  # no GEMM operator involved
    return (products.sum(-1) * (a_scale * state["b_scale"])).to(torch.bfloat16)


def zeros_like_output(state, a):
    return torch.zeros((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16, device=a.device)
