"""Known wrong (X24): the textbook fp32 online-softmax Triton kernel, fast but not accurate enough.

One program per row: per-lane running max and sum (rescaled by exp(m_old - m_new) when the max grows),
then a second sweep writing exp(x - max) / sum. It rounds x - max to fp32, uses tl.exp (ex2.approx of
x * log2(e) on the GPU) and sums without compensation. That is what most softmax kernels do, and it lands
between 1e-6 and 1e-5 relative error on the adversarial families: outside the 1e-6 bound. On the CPU
interpreter tl.exp is numpy's accurate exp, but the fp32 rounding of x - max alone (0.5 ulp of |x - max|,
up to 1.9e-6 relative at 60 nats) still fails the huge_range and llm_logits families there.
"""

import torch
import triton
import triton.language as tl

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
BLOCK = 1024


@triton.jit
def _online_softmax(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lanes = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        x = tl.load(x_ptr + row * n + start + lanes, mask=start + lanes < n, other=-float("inf"))
        m_new = tl.maximum(m, x)
        rescale = tl.where(m_new == -float("inf"), 1.0, tl.exp(m - m_new))
        s = s * rescale + tl.where(x == -float("inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    for start in range(0, n, BLOCK):
        mask = start + lanes < n
        x = tl.load(x_ptr + row * n + start + lanes, mask=mask, other=-float("inf"))
        tl.store(out_ptr + row * n + start + lanes, tl.exp(x - row_max) / total, mask=mask)


def run(state, x):
    out = torch.empty_like(x)
    _online_softmax[(x.shape[0],)](x, out, x.shape[1], BLOCK=BLOCK, num_warps=4)
    return out
