"""A kernelbench.com 07_w4a16_gemm solution in their interface, in plain torch, for the adapter's CPU tests.

Their contract: Model(M, N, K, group_size=128) with buffers `w_q` (K/2, N) uint8 (q[k, n] in the low nibble
of byte k // 2 for even k, the high nibble for odd k), `scales` and `zeros` (K/group, N) bf16; forward(x),
x (M, K) bf16, returns x @ W in bf16 with W[k, n] = (q[k, n] - zeros[k // group, n]) * scales[k // group, n]
rounded to bf16, as their reference does. Written without a GEMM operator (our problem refuses them):
elementwise products in fp32, summed over K.
"""

import torch
from torch import nn

GROUP_SIZE = 128


def unpack_nibbles(w_q: torch.Tensor) -> torch.Tensor:
    """(K/2, N) uint8 -> (K, N) values 0..15: even k from the low nibble, odd k from the high."""
    low, high = w_q & 0xF, w_q >> 4
    return torch.stack([low, high], dim=1).reshape(2 * w_q.shape[0], w_q.shape[1])


class Model(nn.Module):
    def __init__(self, M: int, N: int, K: int, group_size: int = GROUP_SIZE):
        super().__init__()
        assert K % group_size == 0 and K % 2 == 0
        self.M, self.N, self.K, self.group_size = M, N, K, group_size
        self.register_buffer("w_q", torch.zeros(K // 2, N, dtype=torch.uint8))
        self.register_buffer("scales", torch.zeros(K // group_size, N, dtype=torch.bfloat16))
        self.register_buffer("zeros", torch.zeros(K // group_size, N, dtype=torch.bfloat16))

    def dequantized(self) -> torch.Tensor:
        q = unpack_nibbles(self.w_q).to(torch.bfloat16)
        per_row = lambda t: t.repeat_interleave(self.group_size, dim=0)
        return (q - per_row(self.zeros)) * per_row(self.scales)  # bf16, as their reference rounds it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        products = x.to(torch.float32)[:, :, None] * self.dequantized().to(torch.float32)[None, :, :]  # (M, K, N)
        return products.sum(dim=1).to(torch.bfloat16)
