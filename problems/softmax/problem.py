"""Accurate softmax: inputs (adversarial logit families), the fp64 reference and the roofline formulas.

Data lives in problem.toml. Every shape carries a `family` code that picks how the logits are drawn; each
family attacks one way a careless fp32 softmax loses accuracy (the tolerance is a relative bound of 1e-6
on every element against an fp64 softmax of the same fp32 inputs):

  0 llm_logits     4 * N(0, 1) plus a per-row offset in [-20, 20]: what an LM head emits. Arguments
                   x - max reach -40, where fl(x - max) and an exp2-based fast exponential lose ~1e-6.
  1 huge_range     logits spread over 60 nats below a non-round per-row maximum: outputs span 1e-30..1e-2.
                   Rounding x - max to fp32 alone costs up to 0.5 ulp(|x - max|) = 1.9e-6 relative.
  2 dominant_tiny  one dominant logit every ~64 positions (jittered) among tiny terms worth 0.9 * 2^-24
                   of a dominant one each: the tiny terms are 1.4e-6 of the denominator together, and
                   a running fp32 sum that already holds a dominant term drops every one of them.
  3 near_ties      logits on a fine grid just below the maximum (ties and near-ties): the denominator is
                   about n, summed from n terms near 1, where uncompensated sums drift.
  4 masked         LLM-like logits with 30% of the entries -inf (masked vocabulary); probability 0 there.

Rows are independent draws; families keep every reference probability above 1e-32 (atol is 1e-36).
"""

import math

import torch

FAMILIES = {0: "llm_logits", 1: "huge_range", 2: "dominant_tiny", 3: "near_ties", 4: "masked"}
FLOPS_PER_ELEMENT = 5  # max, subtract, exp, add, scale: the algorithmic count (memory-bound either way)


def flops(shape):
    return FLOPS_PER_ELEMENT * shape["rows"] * shape["n"]


def bytes_moved(shape):
    return 2 * 4 * shape["rows"] * shape["n"]  # fp32 logits read once, fp32 probabilities written once


def output_spec(shape):
    return (shape["rows"], shape["n"]), torch.float32


def make_weights(shape, gen, device):
    if shape["family"] not in FAMILIES:
        raise ValueError(f"family={shape['family']} is not one of {sorted(FAMILIES)} ({FAMILIES})")
    return {}


def _uniform(rows, n, gen, device):
    return torch.rand((rows, n), generator=gen, device=device, dtype=torch.float64)


def _row_offset(rows, gen, device, low, high):
    """A per-row offset drawn in [low, high): non-round, so x - max is inexact in fp32 for far logits."""
    return low + (high - low) * torch.rand((rows, 1), generator=gen, device=device, dtype=torch.float64)


def make_logits(shape, gen, device):
    rows, n, family = shape["rows"], shape["n"], shape["family"]
    if family == 0:
        x = 4.0 * torch.randn((rows, n), generator=gen, device=device, dtype=torch.float64)
        x = x + _row_offset(rows, gen, device, -20.0, 20.0)
    elif family == 1:
        x = _row_offset(rows, gen, device, -15.0, 15.0) - 60.0 * _uniform(rows, n, gen, device)
    elif family == 2:
        # Tiny terms: exp(tiny - dominant) = 0.9 * 2^-24, just under half an ulp of 1.
        tiny_gap = math.log(0.9 * 2.0**-24)
        offset = _row_offset(rows, gen, device, -5.0, 5.0)
        x = offset + tiny_gap + 1e-3 * _uniform(rows, n, gen, device)
        period = 64
        slots = torch.arange(0, n, period, device=device)
        jitter = torch.randint(0, period, (rows, slots.numel()), generator=gen, device=device)
        where = (slots.unsqueeze(0) + jitter).clamp(max=n - 1)
        dominant = offset + 1e-3 * _uniform(rows, slots.numel(), gen, device)
        x.scatter_(1, where, dominant)
    elif family == 3:
        # 1 + a multiple of 2^-12 nats below a non-round max: many exact ties, every term near 1.
        steps = torch.randint(0, 4096, (rows, n), generator=gen, device=device).to(torch.float64)
        x = _row_offset(rows, gen, device, 3.0, 9.0) - steps * 2.0**-12
    elif family == 4:
        x = 4.0 * torch.randn((rows, n), generator=gen, device=device, dtype=torch.float64)
        x = x + _row_offset(rows, gen, device, -20.0, 20.0)
        masked = _uniform(rows, n, gen, device) < 0.3
        masked[:, 0] = False  # every row keeps a finite logit
        x = x.masked_fill(masked, -math.inf)
    else:
        raise ValueError(f"family={family} is not one of {sorted(FAMILIES)} ({FAMILIES})")
    return x.to(torch.float32).contiguous()


def make_inputs(shape, weights, gen, device):
    return {"x": make_logits(shape, gen, device)}


def reference(weights, inputs):
    """Softmax over the last dimension of the fp32 logits, computed in fp64 (exact to ~1e-16)."""
    x = inputs["x"].to(torch.float64)
    shifted = x - x.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=-1, keepdim=True)
