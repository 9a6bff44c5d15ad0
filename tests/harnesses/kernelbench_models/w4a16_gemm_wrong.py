"""w4a16_gemm.py with the nibble order swapped (even k read from the high nibble, odd k from the low),
the mistake of a kernel written for the other common int4 packing."""

import torch
from torch import nn

GROUP_SIZE = 128


def unpack_nibbles(w_q: torch.Tensor) -> torch.Tensor:
    """(K/2, N) uint8 -> (K, N): even k from the HIGH nibble, odd k from the low (wrong)."""
    low, high = w_q & 0xF, w_q >> 4
    return torch.stack([high, low], dim=1).reshape(2 * w_q.shape[0], w_q.shape[1])


class Model(nn.Module):
    def __init__(self, M: int, N: int, K: int, group_size: int = GROUP_SIZE):
        super().__init__()
        self.M, self.N, self.K, self.group_size = M, N, K, group_size
        self.register_buffer("w_q", torch.zeros(K // 2, N, dtype=torch.uint8))
        self.register_buffer("scales", torch.zeros(K // group_size, N, dtype=torch.bfloat16))
        self.register_buffer("zeros", torch.zeros(K // group_size, N, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = unpack_nibbles(self.w_q).to(torch.bfloat16)
        per_row = lambda t: t.repeat_interleave(self.group_size, dim=0)
        weight = (q - per_row(self.zeros)) * per_row(self.scales)
        products = x.to(torch.float32)[:, :, None] * weight.to(torch.float32)[None, :, :]
        return products.sum(dim=1).to(torch.bfloat16)
