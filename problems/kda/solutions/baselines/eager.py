"""Eager PyTorch line: the same chunked WY algorithm as the house kernel, in fp32 torch operations.

Intra-chunk matrices for all chunks at once (batched matmuls and a batched triangular solve), then a
Python loop over the chunks for the state recurrence. The per-channel decay is factored per 16-row block
with the block's first row as reference, as in the house kernel, so no exponential overflows.
"""

import torch

LABEL = "eager PyTorch (chunked WY form, fp32, loop over chunks)"
C, SUB = 64, 16


def kda_chunked(q, k, v, g, beta, scale):
    B, T, H, K = q.shape
    V = v.shape[-1]
    NT = -(-T // C)
    pad = NT * C - T

    def chunks(x):  # (B, T, H, D) -> (B, H, NT, C, D) fp32, zero-padded to whole chunks
        x = torch.nn.functional.pad(x.float(), (0, 0, 0, 0, 0, pad))
        return x.reshape(B, NT, C, H, -1).permute(0, 3, 1, 2, 4)

    q, k, v, g = chunks(q), chunks(k), chunks(v), chunks(g)
    beta = chunks(beta[..., None])[..., 0]
    G = g.cumsum(-2)
    L = torch.zeros(B, H, NT, C, C, device=q.device)
    A = torch.zeros_like(L)
    for s in range(C // SUB):
        ref = G[..., s * SUB: s * SUB + 1, :]
        left = torch.zeros_like(G)
        left[..., s * SUB:(s + 1) * SUB, :] = torch.exp(G[..., s * SUB:(s + 1) * SUB, :] - ref)
        right = torch.zeros_like(G)
        right[..., :(s + 1) * SUB, :] = k[..., :(s + 1) * SUB, :] * torch.exp(ref - G[..., :(s + 1) * SUB, :])
        L += (k * left) @ right.transpose(-1, -2)
        A += (q * left) @ right.transpose(-1, -2)
    lower = torch.ones(C, C, dtype=torch.bool, device=q.device).tril(-1)
    L = (L * beta[..., None]).masked_fill(~lower, 0)
    A = (A * scale).masked_fill(~(lower | torch.eye(C, dtype=torch.bool, device=q.device)), 0)
    eye = torch.eye(C, device=q.device)
    rhs = torch.cat([beta[..., None] * torch.exp(G) * k, beta[..., None] * v], dim=-1)
    wu = torch.linalg.solve_triangular(eye + L, rhs, upper=False, unitriangular=True)
    w, u = wu[..., :K], wu[..., K:]
    qg = q * torch.exp(G) * scale
    g_last = G[..., -1:, :]
    kg = k * torch.exp(g_last - G)
    decay = torch.exp(g_last[..., 0, :])[..., None]  # (B, H, NT, K, 1)
    state = torch.zeros(B, H, K, V, device=q.device)
    o = torch.empty(B, H, NT, C, V, device=q.device)
    for i in range(NT):
        v_new = u[:, :, i] - w[:, :, i] @ state
        o[:, :, i] = qg[:, :, i] @ state + A[:, :, i] @ v_new
        state = state * decay[:, :, i] + kg[:, :, i].transpose(-1, -2) @ v_new
    return o.permute(0, 2, 3, 1, 4).reshape(B, NT * C, H, V)[:, :T]


def run(state, q, k, v, g, beta, scale):
    return kda_chunked(q, k, v, g, beta, scale).to(torch.bfloat16)
