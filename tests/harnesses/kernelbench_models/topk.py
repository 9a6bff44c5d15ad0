"""A kernelbench.com 05_topk_bitonic solution in their interface, in plain torch, for the adapter's CPU tests.

Their contract: Model(batch, n, k) with one buffer `_dummy` (zeros(1)); forward(x), x (batch, n) fp32, returns
(values, indices) as torch.topk(x, k, dim=-1, largest=True, sorted=True) does: values (batch, k) fp32 sorted
descending, indices (batch, k) int64. Written without a sort or top-k operator (our problem refuses them):
k rounds of argmax over integer keys in torch.topk's order (NaN above +inf), each winner then pushed below
every key, so that it is never chosen twice, even in a row of -inf.
"""

import torch
from torch import nn

BELOW_EVERY_KEY = -(2**40)  # keys are int32 values (NaN: 2**31): this is below all of them


def order_keys(x: torch.Tensor) -> torch.Tensor:
    """int64 keys with the float order of x (-inf lowest, +inf below NaN): negative floats' magnitude bits flipped."""
    bits = x.contiguous().view(torch.int32).to(torch.int64)
    keys = torch.where(bits < 0, bits ^ 0x7FFFFFFF, bits)
    return keys.masked_fill(torch.isnan(x), 2**31)


class Model(nn.Module):
    def __init__(self, batch: int, n: int, k: int):
        super().__init__()
        self.batch, self.n, self.k = batch, n, k
        self.register_buffer("_dummy", torch.zeros(1))

    def forward(self, x: torch.Tensor):
        keys = order_keys(x)
        chosen = []
        for _ in range(self.k):
            winner = keys.argmax(dim=-1, keepdim=True)
            chosen.append(winner)
            keys.scatter_(-1, winner, BELOW_EVERY_KEY)
        indices = torch.cat(chosen, dim=-1)
        return x.gather(-1, indices), indices
