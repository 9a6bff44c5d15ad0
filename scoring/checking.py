"""Correctness: compare a solution's output with the problem's higher-precision reference.

The rule (per element): |out - ref| <= atol + rtol * |ref|, plus a normwise bound
||out - ref|| / ||ref|| <= normwise. Any NaN or Inf in the output fails. Problems scale their inputs so
the reference is O(1): then zeros, a copied input or a constant output fail both bounds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from scoring.spec import Tolerance


@dataclass(frozen=True)
class CheckStats:
    passed: bool
    max_abs_err: float
    max_rel_err: float  # over elements with |ref| > atol, where a relative error means something
    normwise_err: float
    bad_elements: int  # elements outside atol + rtol * |ref|
    nonfinite_elements: int
    detail: str = ""
    elements: int = 0  # of the output, so that a count of bad elements can be read as a share

    def as_dict(self) -> dict:
        return asdict(self)


class OutputContractError(Exception):
    """The output is not a plain dense tensor of the declared shape, dtype and device (X05)."""


def check_output_contract(out, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> None:
    if type(out) is not torch.Tensor:  # subclasses (lazy tensors, wrappers) are refused outright
        raise OutputContractError(
            f"returned {type(out).__module__}.{type(out).__qualname__}, expected a plain torch.Tensor"
        )
    if tuple(out.shape) != tuple(shape):
        raise OutputContractError(f"shape {tuple(out.shape)}, expected {tuple(shape)}")
    if out.dtype != dtype:
        raise OutputContractError(f"dtype {out.dtype}, expected {dtype}")
    if out.device.type != device.type:
        raise OutputContractError(f"device {out.device}, expected {device}")
    if out.layout != torch.strided or out.is_sparse:
        raise OutputContractError(f"layout {out.layout}, expected a dense strided tensor")


def compare(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance) -> CheckStats:
    out64 = out.detach().to(torch.float64)
    ref64 = ref.detach().to(torch.float64)
    nonfinite = int((~torch.isfinite(out64)).sum().item())
    if nonfinite:
        return CheckStats(
            False,
            float("inf"),
            float("inf"),
            float("inf"),
            nonfinite,
            nonfinite,
            f"{nonfinite} NaN/Inf elements",
            elements=out64.numel(),
        )
    err = (out64 - ref64).abs()
    bound = tol.atol + tol.rtol * ref64.abs()
    bad = int((err > bound).sum().item())
    significant = ref64.abs() > tol.atol
    max_rel = float((err[significant] / ref64.abs()[significant]).max().item()) if significant.any() else 0.0
    ref_norm = float(torch.linalg.vector_norm(ref64).item())
    normwise = float(torch.linalg.vector_norm(out64 - ref64).item()) / max(ref_norm, 1e-300)
    passed = bad == 0 and normwise <= tol.normwise
    detail = (
        ""
        if passed
        else (
            f"{bad} of {ref64.numel()} elements outside atol+rtol*|ref|; "
            f"normwise error {normwise:.3g} (bound {tol.normwise:g})"
        )
    )
    return CheckStats(
        passed,
        float(err.max().item()) if err.numel() else 0.0,
        max_rel,
        normwise,
        bad,
        0,
        detail,
        elements=ref64.numel(),
    )


def worst(stats: list[CheckStats]) -> CheckStats:
    """One summary for several checks of a shape: failing first, then the largest normwise error."""
    return max(stats, key=lambda s: (not s.passed, s.normwise_err, s.max_abs_err))
