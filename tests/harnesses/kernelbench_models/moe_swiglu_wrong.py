"""moe_swiglu.py with the fused epilogue's classic mistake: SiLU applied to the up product instead of the
gate product (the two accumulators swapped), silu(x_e W_up[e]) * (x_e W_gate[e]). Our weights give gate
and up different spreads (1.5x), so the swap is wrong on every expert."""

import torch
from torch import nn
from torch.nn import functional


def expert_product(x_e: torch.Tensor, w_e: torch.Tensor) -> torch.Tensor:
    return (x_e.float()[:, :, None] * w_e.float()[None, :, :]).sum(dim=1)


class Model(nn.Module):
    def __init__(self, T_total: int, H: int, I: int, E: int, K: int):
        super().__init__()
        self.T_total, self.H, self.I, self.E, self.K = T_total, H, I, E, K
        self.W_gate = nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))
        self.W_up = nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))
        nn.init.normal_(self.W_gate, std=0.02)
        nn.init.normal_(self.W_up, std=0.02)

    def forward(self, hidden_states: torch.Tensor, expert_offsets: torch.Tensor) -> torch.Tensor:
        out = torch.zeros(hidden_states.shape[0], self.I, dtype=torch.bfloat16, device=hidden_states.device)
        bounds = expert_offsets.tolist()
        for e in range(self.E):
            start, end = bounds[e], bounds[e + 1]
            if end > start:
                x_e = hidden_states[start:end]
                gate, up = expert_product(x_e, self.W_gate[e]), expert_product(x_e, self.W_up[e])
                out[start:end] = (functional.silu(up) * gate).to(torch.bfloat16)  # swapped
        return out
