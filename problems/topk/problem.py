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
