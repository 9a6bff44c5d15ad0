"""A kernelbench.com 01_fp8_gemm solution in their interface, in plain torch, for the adapter's CPU tests.

Their contract: Model(M, N, K) with buffers `weight` (N, K) float8_e4m3fn and `weight_scale` (N,) float32
(loaded from their reference's state dict); forward(x), x (M, K) float8_e4m3fn, returns
((x @ weight^T) * weight_scale) in bf16. Written without a GEMM operator (our problem refuses them):
elementwise products in fp32, summed over K.
"""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, M: int, N: int, K: int):
        super().__init__()
        self.M, self.N, self.K = M, N, K
        self.register_buffer("weight", torch.zeros(N, K, dtype=torch.float8_e4m3fn))
        self.register_buffer("weight_scale", torch.ones(N, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        products = x.to(torch.float32)[:, None, :] * self.weight.to(torch.float32)[None, :, :]  # (M, N, K)
        return (products.sum(dim=2) * self.weight_scale[None, :]).to(torch.bfloat16)
