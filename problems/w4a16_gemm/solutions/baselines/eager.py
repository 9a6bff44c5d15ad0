"""Eager PyTorch line: dequantise the whole weight to bf16 every call, then a dense cuBLAS GEMM."""

import torch

LABEL = "eager PyTorch (dequantise to bf16 + torch.mm)"
GROUP_SIZE = 128


def dequantize_bf16(qweight, scales, zeros):
    shifts = 4 * torch.arange(8, device=qweight.device, dtype=torch.int32)
    q = ((qweight[:, None, :] >> shifts[None, :, None]) & 0xF).reshape(-1, qweight.shape[1])  # (K, N)
    s = scales.repeat_interleave(GROUP_SIZE, dim=0)
    z = zeros.repeat_interleave(GROUP_SIZE, dim=0)
    return ((q.to(torch.bfloat16) - z) * s).to(torch.bfloat16)


def run(state, x):
    return torch.mm(x, dequantize_bf16(state["qweight"], state["scales"], state["zeros"]))
