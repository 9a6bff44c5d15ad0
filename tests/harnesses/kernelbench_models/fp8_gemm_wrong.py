"""fp8_gemm.py with a tile kernel's classic mistake: K is walked in whole tiles of 64 and the partial last
tile is dropped (no predicated tail), so K not a multiple of 64 loses its last K % 64 products: right on
the CPU shapes square_64 and decode_m4 (K = 64, 256), wrong on k_unaligned_112 (K = 112)."""

import torch
from torch import nn

TILE_K = 64


class Model(nn.Module):
    def __init__(self, M: int, N: int, K: int):
        super().__init__()
        self.M, self.N, self.K = M, N, K
        self.register_buffer("weight", torch.zeros(N, K, dtype=torch.float8_e4m3fn))
        self.register_buffer("weight_scale", torch.ones(N, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        full_k = self.K // TILE_K * TILE_K
        x_tiles = x[:, :full_k].to(torch.float32)
        w_tiles = self.weight[:, :full_k].to(torch.float32)
        products = x_tiles[:, None, :] * w_tiles[None, :, :]
        return (products.sum(dim=2) * self.weight_scale[None, :]).to(torch.bfloat16)
