"""Known wrong (X20): computes the exponentials in fp16 (an 'fp32' kernel that downcasts), in eager torch.

Exact max and fp64 sums, but exp(x - max) rounded to fp16 carries 2^-11 relative error: 500x the bound.
"""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x):
    shifted = x - x.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted.to(torch.float16).to(torch.float32))
    return (e.double() / e.double().sum(dim=-1, keepdim=True)).float()
