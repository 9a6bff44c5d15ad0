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

from scoring.call_checks import count_nonfinite, nonfinite_failure, rows_per_block, sampled_rows, within_bounds
from scoring.checking import worst

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


# -- per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call) ----------------------------------
VERIFY_METHOD = ("every row: its fp64 sum within 2 (rtol + n atol) of 1, and 16 random entries within "
                 "2 (atol + 2 rtol |pred|) of pred = out[argmax x] * exp(x - max x) (the ratios softmax fixes); "
                 "plus 4 random whole rows recomputed in fp64 as exp(x - max) / sum, within 2x atol + rtol*|ref| "
                 "elementwise. A zeroed or NaN row fails wherever it is; a stale row escapes its 16 ratios ~never")

# Whole-output invariants cover every row at O(rows) extra work besides one pass over x and one over out:
# a row summing to 1 whose sampled entries stand in softmax's ratios to its largest is the row's softmax
# unless it is wrong only off the sampled entries, which the whole rows below check for a few rows.
SAMPLED_COLUMNS = 16
FULL_ROWS = 4
# Bounds from the tolerance, with a safety factor of 2 over what any output passing the full check can reach:
# |sum - 1| <= sum |out - ref| <= rtol + n atol; an entry against pred (whose own scale out[argmax] is off by
# at most rtol) is off by at most atol + 2 rtol |ref|; 2x covers fp64 rounding (1e-16 n) and |pred| vs |ref|.
SAFETY = 2.0
CHUNK_ELEMENTS = 2**23  # fp64 copies of 64 MiB: 0.51 GiB of extra memory at the peak (H100, 2M-wide rows)
# Cost on near_ties_2m (16 x 2M): one max pass over x, one fp64 row-sum pass over out (~20 bytes per
# element, ~0.7 GB) and 4 rows recomputed (8M elements, ~0.5 GB): measured 3.8 ms on an H100, most of it
# launches and synchronisations (2.6 ms on the smaller shapes); the call moves 0.27 GB, 0.08 ms at the roofline.


def _row_sums(out):
    """Row sums in fp64, a block of rows at a time."""
    step = rows_per_block(CHUNK_ELEMENTS, out.shape[1])
    return torch.cat([block.double().sum(1) for block in out.split(step)])


def _softmax_fp64(x):
    shifted = x.double() - x.amax(dim=1, keepdim=True).double()
    e = torch.exp(shifted)
    return e / e.sum(dim=1, keepdim=True)


def verify_call(out, weights, inputs, gen, tolerance):
    x = inputs["x"]
    rows, n = x.shape
    sums = _row_sums(out)
    if not bool(torch.isfinite(sums).all()):  # fp64 sums of fp32 values cannot overflow: out holds NaN/Inf
        return nonfinite_failure(count_nonfinite(out, CHUNK_ELEMENTS))
    sum_check = within_bounds(sums, torch.ones_like(sums), 0.0, SAFETY * (tolerance.rtol + n * tolerance.atol),
                              "row sums")
    x_max, argmax = x.max(dim=1, keepdim=True)
    columns = torch.randint(0, n, (rows, SAMPLED_COLUMNS), generator=gen, device=x.device)
    pred = out.gather(1, argmax).double() * torch.exp(x.gather(1, columns).double() - x_max.double())
    ratio_check = within_bounds(out.gather(1, columns).double(), pred, SAFETY * 2 * tolerance.rtol,
                                SAFETY * tolerance.atol, "sampled entries against out[argmax] * exp(x - max)")
    full = sampled_rows(rows, FULL_ROWS, gen, x.device)
    step = rows_per_block(CHUNK_ELEMENTS, n)
    full_checks = [within_bounds(out[block].double(), _softmax_fp64(x[block]), SAFETY * tolerance.rtol,
                                 SAFETY * tolerance.atol, "elements of sampled rows")
                   for block in full.split(step)]
    return worst([sum_check, ratio_check, *full_checks])
