"""Top-k: inputs (adversarial families), the reference, a tie-aware check and the roofline formulas.

The solution returns the int64 indices (batch, k) of the k largest entries of each row, ordered by value,
largest first. The values are x.gather(1, indices): one output tensor carries the whole answer.

NaN semantics: NaN counts as larger than every number, +inf included (torch.topk's order). A row with NaNs
puts them first; which NaNs, among more than k, is free like any tie.

Family codes (a shape parameter), each against one shortcut:
  0 random       N(0, 1) logits.
  1 many_ties    integers 0..7 as floats: thousands of exact ties at the threshold.
  2 clustered    N(0, 1) plus one contiguous run of 4k increasing values above all others: every winner
                 sits in one small window (defeats per-block sampling and block-local thresholds).
  3 neg_inf      99.9% -inf: most rows have fewer than k finite entries, so -inf entries are selected.
  4 nan          N(0, 1) with a few NaNs per row (some rows more than k): NaNs must come first.
"""

import torch

from scoring.checking import CheckStats

FAMILIES = {0: "random", 1: "many_ties", 2: "clustered", 3: "neg_inf", 4: "nan"}


def flops(shape):
    return shape["batch"] * shape["n"]  # one comparison per element: the algorithmic floor


def bytes_moved(shape):
    return 4 * shape["batch"] * shape["n"] + 8 * shape["batch"] * shape["k"]  # fp32 in, int64 indices out


def output_spec(shape):
    return (shape["batch"], shape["k"]), torch.int64


def make_weights(shape, gen, device):
    if shape["family"] not in FAMILIES:
        raise ValueError(f"family={shape['family']} is not one of {sorted(FAMILIES)} ({FAMILIES})")
    if not 1 <= shape["k"] <= shape["n"]:
        raise ValueError(f"k={shape['k']} must be in [1, n={shape['n']}]")
    return {}


def make_values(shape, gen, device):
    batch, n, k, family = shape["batch"], shape["n"], shape["k"], shape["family"]
    x = torch.randn((batch, n), generator=gen, device=device)
    if family == 1:
        x = torch.randint(0, 8, (batch, n), generator=gen, device=device).to(torch.float32)
    elif family == 2:
        width = min(n, 4 * k)
        start = torch.randint(0, n - width + 1, (batch, 1), generator=gen, device=device)
        cols = start + torch.arange(width, device=device)
        ramp = 10.0 + torch.arange(width, device=device, dtype=torch.float32) / width
        x.scatter_(1, cols, ramp.expand(batch, width).contiguous())
    elif family == 3:
        finite = torch.rand((batch, n), generator=gen, device=device) < 0.001
        x = x.masked_fill(~finite, float("-inf"))
    elif family == 4:
        nan_count = torch.randint(0, 2 * k + 2, (batch, 1), generator=gen, device=device)
        rank = torch.rand((batch, n), generator=gen, device=device).argsort(dim=1).argsort(dim=1)
        x = x.masked_fill(rank < nan_count, float("nan"))
    return x.contiguous()


def make_inputs(shape, weights, gen, device):
    return {"x": make_values(shape, gen, device), "k": shape["k"]}


def reference(weights, inputs):
    """The k largest values of each row, descending, NaN first (torch.topk's order, which the grader may use)."""
    return torch.topk(inputs["x"].to(torch.float64), inputs["k"], dim=1, largest=True, sorted=True).values


def _same(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a == b) | (torch.isnan(a) & torch.isnan(b))


def check(out, ref, weights, inputs, tolerance):
    """Exact, tie-aware: indices in range and distinct per row, and x.gather(indices) equals the reference's
    sorted values element for element (NaN matches NaN). Any valid choice among tied entries passes."""
    x = inputs["x"]
    batch, n = x.shape
    k = ref.shape[1]
    total = batch * k
    out_of_range = int(((out < 0) | (out >= n)).sum().item())
    if out_of_range:
        return CheckStats(False, float("inf"), float("inf"), float("inf"), out_of_range, 0,
                          f"{out_of_range} of {total} indices outside [0, {n})")
    ordered = out.sort(dim=1).values
    duplicates = int((ordered[:, 1:] == ordered[:, :-1]).sum().item())
    if duplicates:
        return CheckStats(False, float("inf"), float("inf"), float("inf"), duplicates, 0,
                          f"{duplicates} repeated indices (an index may be chosen once per row)")
    got = x.gather(1, out).to(torch.float64)
    wrong = ~_same(got, ref)
    bad = int(wrong.sum().item())
    finite = torch.isfinite(ref) & torch.isfinite(got)
    err = (got - ref).abs().where(finite, torch.zeros_like(got))
    max_abs = float(err.max().item()) if bad else 0.0
    detail = "" if not bad else (f"{bad} of {total} selected values differ from the reference's sorted top-k "
                                 f"(wrong element, or wrong order)")
    return CheckStats(bad == 0, max_abs, 0.0, 0.0 if not bad else float(bad) / total, bad, 0, detail)


# -- per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call) ----------------------------------
VERIFY_METHOD = ("exact, every row, no randomness: indices in [0, n) and distinct (k x k comparisons), "
                 "x[indices] non-increasing with NaN first, and the count of entries of x ranking above the "
                 "k-th selected value (NaN above all) equal to the count among the selected; one pass over x, "
                 "no sort or topk")

# Why the count suffices: with k distinct selected indices whose smallest value is t, the selection is a
# valid top-k exactly when every entry ranking above t is selected, i.e. when the row holds no more entries
# above t than the selection does. Ties at t are free, as in check(). The output is int64, so there is no NaN
# to look for; poisoned (out-of-range) or repeated indices fail the first two tests.
# Cost on ties_32k (1024 x 32768, k = 64): one comparison pass over x (4 bytes read per element, 1 written,
# and the counts' int64 widening: ~0.45 GB, 0.28 GiB of extra memory at the peak) and O(batch k^2) on the
# output: measured 0.8 ms on an H100, against the call's 0.13 GB (0.04 ms at the roofline).


def _ranks_at_least(a, b):
    """a ranks at or above b in topk's order (NaN above every number)."""
    return torch.isnan(a) | (a >= b)


def _row_failure(rows_bad, batch, what):
    bad = int(rows_bad.sum().item())
    return CheckStats(False, float("inf"), float("inf"), float("inf"), bad, 0, f"{bad} of {batch} rows: {what}")


def verify_call(out, weights, inputs, gen, tolerance):
    x = inputs["x"]
    batch, n = x.shape
    outside = ((out < 0) | (out >= n)).any(dim=1)
    if bool(outside.any()):
        return _row_failure(outside, batch, f"indices outside [0, {n})")
    repeated = (out[:, :, None] == out[:, None, :]).sum(dim=(1, 2)) > out.shape[1]  # the diagonal matches once each
    if bool(repeated.any()):
        return _row_failure(repeated, batch, "repeated indices (an index may be chosen once per row)")
    values = x.gather(1, out)
    misordered = ~_ranks_at_least(values[:, :-1], values[:, 1:]).all(dim=1)
    if bool(misordered.any()):
        return _row_failure(misordered, batch, "selected values not in descending order (NaN first)")
    kth = values[:, -1:]
    # "not (v <= kth)" is "v ranks above kth" for a number kth (NaN counts as above); an all-NaN selection is valid.
    above_in_row = n - (x <= kth).sum(dim=1)
    above_selected = values.shape[1] - (values <= kth).sum(dim=1)
    missed = (above_in_row != above_selected) & ~torch.isnan(kth[:, 0])
    if bool(missed.any()):
        return _row_failure(missed, batch, "an unselected entry ranks above a selected one (not the top k)")
    return CheckStats(True, 0.0, 0.0, 0.0, 0, 0, "")
