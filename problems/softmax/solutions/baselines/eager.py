"""Eager PyTorch line: the accurate way in plain torch ops: widen to fp64, exp(x - max) / sum, round to fp32.

(torch.softmax in fp32 is the library line; it is fast but misses the 1e-6 bound on these families.)
"""

import torch

LABEL = "eager PyTorch (fp64 exp / sum, rounded to fp32)"


def run(state, x):
    x64 = x.to(torch.float64)
    e = torch.exp(x64 - x64.amax(dim=-1, keepdim=True))
    return (e / e.sum(dim=-1, keepdim=True)).to(torch.float32)
