"""topk.py with a classic mistake: each winner is marked taken by overwriting its value with -inf (instead of
pushing it below every value). Correct on their N(0, 1) rows; in a row with fewer than k finite entries the
argmax of a row of -inf returns the first -inf, taken or not, so an index comes back twice."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, batch: int, n: int, k: int):
        super().__init__()
        self.batch, self.n, self.k = batch, n, k
        self.register_buffer("_dummy", torch.zeros(1))

    def forward(self, x: torch.Tensor):
        remaining = x.clone()
        chosen = []
        for _ in range(self.k):
            winner = remaining.argmax(dim=-1, keepdim=True)
            chosen.append(winner)
            remaining.scatter_(-1, winner, float("-inf"))  # wrong: a taken entry looks like an untaken -inf one
        indices = torch.cat(chosen, dim=-1)
        return x.gather(-1, indices), indices
