"""A kernelbench.com 06_sonic_moe_swiglu solution in their interface, in plain torch, for the adapter's CPU tests.

Their contract: Model(T_total, H, I, E, K) with parameters `W_gate` and `W_up` (E, H, I) bf16; forward(
hidden_states, expert_offsets), hidden_states (T_total*K, H) bf16 in expert order, expert_offsets (E+1,)
int32 (expert e owns rows offsets[e]:offsets[e+1]); returns (T_total*K, I) bf16, silu(x_e W_gate[e]) *
(x_e W_up[e]) per expert. Written without a GEMM operator (our problem refuses them): elementwise products
in fp32, summed over H.
"""

import torch
from torch import nn
from torch.nn import functional


def expert_product(x_e: torch.Tensor, w_e: torch.Tensor) -> torch.Tensor:
    """(n, H) bf16 by (H, I) bf16 -> (n, I) fp32, as broadcast products summed over H."""
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
                out[start:end] = (functional.silu(gate) * up).to(torch.bfloat16)
        return out
