"""Eager PyTorch line: a Python loop over experts, two torch.mm per expert and SwiGLU (what naive MoE code does).

The loop needs the offsets on the host (one device-to-host copy per call), as such code does.
"""

import torch

LABEL = "eager PyTorch (per-expert loop of torch.mm + SiLU * up)"


def run(state, x, offsets):
    w_gate, w_up = state["w_gate"], state["w_up"]
    out = torch.empty((x.shape[0], w_gate.shape[2]), dtype=torch.bfloat16, device=x.device)
    bounds = offsets.tolist()
    for e in range(len(bounds) - 1):
        start, end = bounds[e], bounds[e + 1]
        if end > start:
            xe = x[start:end]
            out[start:end] = torch.nn.functional.silu(torch.mm(xe, w_gate[e])) * torch.mm(xe, w_up[e])
    return out
