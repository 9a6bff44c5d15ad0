"""The pieces that problems' per-call verifications share (scoring/problem.py: VERIFY_METHOD, verify_call).

A problem's verify_call keeps what is its own: which entries it recomputes and how, and its constants (probes,
sample sizes, the safety factor, the block size that bounds extra memory), passed in here as arguments. This
module owns what two problems would otherwise each write again, computed and worded one way:

  count_nonfinite, nonfinite_failure, check_finite       the NaN/Inf failure: one isfinite pass, in blocks
  within_tolerance, within_bounds                        element-wise statistics of recomputed entries
  random_signs, signed_row_sums, row_dots, freivalds_stats   Freivalds' check of a GEMM-shaped output
  sampled_rows, rows_per_block                           a uniform sample of rows; rows per bounded block

Randomness comes only from the generator passed in, one draw per call of random_signs or sampled_rows. No
function runs a GEMM (the GEMM problems forbid mm): elementwise products and sums, in fp64 where they say so.
docs/problems.md ("Per-call verification") states each contract.
"""

from __future__ import annotations

import math
from typing import Iterator

import torch

from scoring.checking import CheckStats
from scoring.spec import Tolerance


# -- blocks and samples -----------------------------------------------------------------------------------------
def rows_per_block(chunk_elements: int, elements_per_row: int) -> int:
    """How many rows of `elements_per_row` elements fit a block of `chunk_elements` (at least one)."""
    return max(1, chunk_elements // elements_per_row)


def sampled_rows(count: int, sample: int, gen: torch.Generator, device) -> torch.Tensor:
    """min(count, sample) distinct row indices in 0..count-1, uniformly at random (one randperm from gen)."""
    return torch.randperm(count, generator=gen, device=device)[:sample]


# -- NaN and Inf ------------------------------------------------------------------------------------------------
def count_nonfinite(values: torch.Tensor, chunk_elements: int) -> int:
    """NaN/Inf elements in `values`: one isfinite pass, in blocks of `chunk_elements` to bound its temporaries."""
    return sum(int((~torch.isfinite(block)).sum().item()) for block in values.reshape(-1).split(chunk_elements))


def nonfinite_failure(count: int) -> CheckStats:
    """The failure for `count` NaN/Inf elements (detail "<count> NaN/Inf elements", which tests and docs read)."""
    return CheckStats(False, math.inf, math.inf, math.inf, count, count, f"{count} NaN/Inf elements")


def check_finite(out: torch.Tensor, chunk_elements: int) -> CheckStats | None:
    """None when every element of out is finite, else nonfinite_failure of their count."""
    count = count_nonfinite(out, chunk_elements)
    if not count:
        return None
    return nonfinite_failure(count)


# -- element-wise statistics of recomputed entries --------------------------------------------------------------
def _elementwise_stats(got, ref, bound, significant_above: float, bound_text: str, what: str) -> CheckStats:
    err = (got - ref).abs()
    bad = int((err > bound).sum().item())
    significant = ref.abs() > significant_above
    max_rel = float((err[significant] / ref.abs()[significant]).max().item()) if significant.any() else 0.0
    normwise = float(torch.linalg.vector_norm(got - ref) / torch.linalg.vector_norm(ref).clamp(min=1e-300))
    detail = "" if not bad else f"{bad} of {ref.numel()} {what} outside {bound_text}"
    return CheckStats(bad == 0, float(err.max().item()), max_rel, normwise, bad, 0, detail)


def within_tolerance(got: torch.Tensor, ref: torch.Tensor, tolerance: Tolerance, safety: float,
                     what: str) -> CheckStats:
    """Every entry within safety x (atol + rtol*|ref|) of the tolerance; the normwise error over the entries is
    reported, never judged. max_rel_err is taken where |ref| > atol (unscaled). Detail when some fail:
    "<bad> of <n> <what> outside <safety> x (atol + rtol*|ref|)"."""
    return _elementwise_stats(got, ref, safety * (tolerance.atol + tolerance.rtol * ref.abs()), tolerance.atol,
                              f"{safety:g} x (atol + rtol*|ref|)", what)


def within_bounds(got: torch.Tensor, ref: torch.Tensor, rtol: float, atol: float, what: str) -> CheckStats:
    """Every entry within atol + rtol*|ref| for bounds given with their safety factor already in them (they are
    not the tolerance's); otherwise as within_tolerance: max_rel_err where |ref| > this atol, normwise reported
    only. Detail: "<bad> of <n> <what> outside atol <atol> + rtol <rtol> * |ref|"."""
    return _elementwise_stats(got, ref, atol + rtol * ref.abs(), atol, f"atol {atol:.3g} + rtol {rtol:.3g} * |ref|",
                              what)


# -- Freivalds' check of a GEMM-shaped output -------------------------------------------------------------------
# Probes from the left (r over the output's rows), because a kernel skips rows or tiles: a wrong row enters
# r^T E with its full norm whatever the signs, and a tile spanning c columns shows with c * probes degrees of
# freedom. With errors and outputs spread over N columns the squared ratio of the estimate is about a ratio of
# chi-squares with probes * N degrees of freedom each, which is what a safety factor over the normwise
# tolerance is chosen against (the GEMM problems state their numbers beside PROBES and SAFETY).
def random_signs(rows: int, probes: int, gen: torch.Generator, device) -> torch.Tensor:
    """(min(probes, rows), rows) fp64 entries +-1, uniform (one randint from gen): with one row, one probe
    makes the check exact."""
    return torch.randint(0, 2, (min(probes, rows), rows), generator=gen, device=device).to(torch.float64) * 2 - 1


def _row_blocks(matrix: torch.Tensor, probes: int, chunk_elements: int,
                widen: torch.dtype | None) -> Iterator[tuple[int, torch.Tensor]]:
    """(first row, block of rows) sized so that a (probes, rows, cols) fp64 product fits chunk_elements."""
    step = rows_per_block(chunk_elements, probes * matrix.shape[1])
    for start in range(0, matrix.shape[0], step):
        block = matrix[start:start + step]
        yield start, block if widen is None else block.to(widen)


def signed_row_sums(matrix: torch.Tensor, signs: torch.Tensor, chunk_elements: int,
                    widen: torch.dtype | None = None) -> torch.Tensor:
    """signs @ matrix in fp64, (probes, cols): elementwise products (the matrix's values promoted to fp64)
    summed over the rows a block at a time, no GEMM. `widen`: a dtype each block is cast to first, for a
    dtype without type promotion (fp8 widens exactly to bf16)."""
    total = torch.zeros((signs.shape[0], matrix.shape[1]), dtype=torch.float64, device=matrix.device)
    for start, block in _row_blocks(matrix, signs.shape[0], chunk_elements, widen):
        total += (signs[:, start:start + block.shape[0], None] * block).sum(1)
    return total


def row_dots(matrix: torch.Tensor, vectors: torch.Tensor, chunk_elements: int,
             widen: torch.dtype | None = None) -> torch.Tensor:
    """matrix @ vectors^T in fp64, (probes, rows): elementwise products summed, no GEMM; `widen` as above."""
    blocks = _row_blocks(matrix, vectors.shape[0], chunk_elements, widen)
    return torch.cat([(block[None] * vectors[:, None, :]).sum(2) for _, block in blocks], dim=1)


def freivalds_stats(out: torch.Tensor, probed_out: torch.Tensor, probed_ref: torch.Tensor, tolerance: Tolerance,
                    safety: float, chunk_elements: int) -> CheckStats:
    """The normwise error estimated from the probes, ||r^T out - r^T ref|| / ||r^T ref||, failing above
    safety x the normwise tolerance. A NaN or Inf anywhere in out makes its probe sums non-finite (fp64 sums of
    bf16 or fp32 values cannot overflow), so the isfinite pass over out (count_nonfinite) runs only then."""
    if not bool(torch.isfinite(probed_out).all()):
        return nonfinite_failure(count_nonfinite(out, chunk_elements))
    normwise = float(torch.linalg.vector_norm(probed_out - probed_ref)
                     / torch.linalg.vector_norm(probed_ref).clamp(min=1e-300))
    bound = safety * tolerance.normwise
    passed = normwise <= bound
    detail = "" if passed else (f"Freivalds estimate of the normwise error {normwise:.3g} over {probed_out.shape[0]} "
                                f"probe(s) exceeds {safety:g} x the tolerance ({bound:g})")
    return CheckStats(passed, 0.0, 0.0, normwise, 0 if passed else 1, 0, detail)
