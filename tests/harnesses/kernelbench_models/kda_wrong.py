"""kda.py with the misreading their reference's docstring invites ("g: per-channel log-decay, in-chunk cumsum
applied"): g is taken as already cumulative within each chunk of 64, so the step decay is exp(g_t - g_{t-1})
inside a chunk (exp(g_t) at a chunk's first token) instead of exp(g_t)."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, B: int, T: int, H: int, K: int, V: int, chunk_size: int = 64):
        super().__init__()
        self.B, self.T, self.H, self.K, self.V = B, T, H, K, V
        self.chunk_size = chunk_size
        self.scale = float(K) ** -0.5
        self.register_buffer("_dummy", torch.zeros(1), persistent=False)

    def forward(self, q, k, v, g, beta):
        B, T, H, K = q.shape
        q, k, v, g, beta = (x.float() for x in (q, k, v, g, beta))
        state = torch.zeros(B, H, K, v.shape[-1], device=q.device)
        o = torch.empty(B, T, H, v.shape[-1], device=q.device)
        for t in range(T):
            step = g[:, t] if t % self.chunk_size == 0 else g[:, t] - g[:, t - 1]  # wrong: g is per step
            state = state * step[..., None].exp()
            recalled = (k[:, t, :, :, None] * state).sum(dim=2)
            write = beta[:, t, :, None] * (v[:, t] - recalled)
            state = state + k[:, t, :, :, None] * write[:, :, None, :]
            o[:, t] = self.scale * (q[:, t, :, :, None] * state).sum(dim=2)
        return o.to(torch.bfloat16)
