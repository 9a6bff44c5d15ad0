"""Their numbers beside ours, made comparable where they can be: their fraction and the peak it is of
(an H100 PCIe), ours and the peak it is of (the GPU that scored the run), their fraction recomputed with our
work formula where theirs differs (MoE: theirs omits the top-k factor), and their agent's time and tokens.

No fraction is converted from one GPU to another: the two are different measurements on different GPUs.
The recomputation changes only the work counted, on their own timings and peaks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from harnesses.kernelbench.their_contract import TheirContract, TheirPeaks, load, their_peaks


@dataclass(frozen=True)
class TheirNumbers:
    their_fraction: float | None  # as published: of their_peak, under their work formula
    their_peak: str  # "756 bf16 TFLOPS (H100 PCIe)"
    our_fraction: float | None  # as scored here: of our_peak
    our_peak: str  # "989 bf16 TFLOPS / 3,350 GB/s (H100 SXM)"
    their_fraction_our_formula: float | None  # their fraction with our work formula, where the formulas differ
    formula_note: str  # why, or ""
    agent_elapsed_s: int | None  # their agent's wall time
    agent_output_tokens: int | None
    agent_cost: str  # what they published of the cost


def topk_factor(contract: TheirContract) -> float | None:
    """The factor our MoE work formula adds to theirs over their shapes: their fraction is the geometric mean
    of per-shape fractions, each compute-bound (problem.yaml regime: compute), so counting top-k times the
    work multiplies it by the geometric mean of their shapes' top-k. None where the formulas agree."""
    if not contract.flops_note:
        return None
    ks = [s["topk"] for s in contract.their_shapes]
    return math.exp(sum(math.log(k) for k in ks) / len(ks))


def _our_peak(data: dict, contract: TheirContract) -> str:
    peak = (data.get("hardware") or {}).get("peak") or {}
    label = peak.get("label") or peak.get("key") or "our GPU"
    tflops = (peak.get("tflops") or {}).get(contract.peak_key)
    bandwidth = peak.get("bandwidth_gbps")
    parts = ([f"{tflops:,.0f} {contract.peak_key} TFLOPS"] if tflops else []) + (
        [f"{bandwidth:,.0f} GB/s"] if bandwidth else []
    )
    return f"{' / '.join(parts)} ({label})" if parts else label


def _number(value, kind):
    return value if isinstance(value, kind) and not isinstance(value, bool) else None


def their_numbers(data: dict, contract: TheirContract | None = None, peaks: TheirPeaks | None = None) -> TheirNumbers:
    contract = contract or load()[data["problem"]["name"]]
    peaks = peaks or their_peaks()
    published = (data.get("agent") or {}).get("published") or {}
    theirs = _number(published.get("peak_fraction"), (int, float))
    factor = topk_factor(contract)
    recomputed = theirs * factor if theirs is not None and factor else None
    note = (
        f"their work formula {contract.flops_formula}, ours {contract.our_flops_formula}: {contract.flops_note}; "
        f"with ours their fraction is x{factor:.2f} (the geometric mean of their shapes' top-k)"
        if factor
        else ""
    )
    score = data.get("score") or {}
    return TheirNumbers(
        their_fraction=theirs,
        their_peak=peaks.of(contract),
        our_fraction=score.get("fraction") if data.get("status") == "passed" else None,
        our_peak=_our_peak(data, contract),
        their_fraction_our_formula=recomputed,
        formula_note=note,
        agent_elapsed_s=_number(published.get("elapsed_seconds"), int),
        agent_output_tokens=_number(published.get("output_tokens"), int),
        agent_cost=str(published["cost_usd"])
        if _number(published.get("cost_usd"), (int, float)) is not None
        else "not published",
    )
