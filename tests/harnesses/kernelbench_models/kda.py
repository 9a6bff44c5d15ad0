"""A kernelbench.com 02_kda_cutlass solution in their interface, in plain torch, for the adapter's CPU tests.

Their contract: Model(B, T, H, K, V, chunk_size=64) with no state dict (a non-persistent `_dummy` buffer)
and `self.scale = K ** -0.5`, read at every call; forward(q, k, v, g, beta), q and k (B, T, H, K) bf16,
v (B, T, H, V) bf16, g (B, T, H, K) fp32 per-step log-decay, beta (B, T, H) bf16; returns o (B, T, H, V)
bf16: the gated delta rule from a zero state, per batch and head,
    S_t = (I - beta_t k_t k_t^T) diag(exp(g_t)) S_{t-1} + beta_t k_t v_t^T,   o_t = scale * S_t^T q_t.
Their reference evaluates it in chunks of 64; this evaluates the same recurrence token by token in fp32
(any T, small shapes).
"""

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
            state = state * g[:, t, :, :, None].exp()
            recalled = (k[:, t, :, :, None] * state).sum(dim=2)  # S^T k_t: (B, H, V)
            write = beta[:, t, :, None] * (v[:, t] - recalled)
            state = state + k[:, t, :, :, None] * write[:, :, None, :]
            o[:, t] = self.scale * (q[:, t, :, :, None] * state).sum(dim=2)
        return o.to(torch.bfloat16)
