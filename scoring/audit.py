"""Hardware-counter audits: what the tensor pipe really executed.

fp8 values are exact in bf16, so no numeric check tells an fp8 GEMM from a bf16 GEMM on fp8 data (X20);
the tensor pipe's per-source-precision operation counters do, and their total against the problem's
FLOP formula shows skipped work (X22). Outcomes are `passed`, `failed (Xnn: detail)` or
`not verified (why)`: an audit that could not run is never reported as passed.

The profiled call is a timed call of the solution's own scoring worker, drawn with the run's secret seed (a
timed shape, then a reservoir over its timed calls, `AuditReservoir`): every GPU worker loads CUPTI's
range profiler before the solution is imported (scoring/counters.py), and the worker switches it on for the
drawn calls (kernel replay: the call's outputs are unchanged; its time is not kept; the last one drawn is
judged). No second process, no ncu, no profiler environment: the process the solution runs in looks the same
whichever call is audited, and a solution that is honest only when profiled is honest on every timed call.
The counters are read in the worker, the solution's process, and judged outside it; a profile the solution's
call made impossible fails the run (X31). What a solution that rewrites the worker's counter reader could
still forge is stated in docs/integrity.md (the trust boundary). Nsight Compute serves only the measuring
command `scoring.tensor_ops` (scoring/ncu_profile.py), never a score.
"""

from __future__ import annotations

import random

from scoring.seeds import derive_seed

# Tensor-pipe operation counters by source precision (Hopper's metric names). Each counts FLOPs.
PRECISION_METRICS = {
    "fp8": "sm__ops_path_tensor_src_fp8.sum",
    "bf16": "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "fp16": "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
    "tf32": "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum",
}
# Collected beside them: kernel time and DRAM traffic, kept as evidence.
EXTRA_METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum")
# Executed tensor FLOPs may exceed the formula by tile padding; below this share of it, work was skipped.
MIN_EXECUTED_SHARE = 0.99
# Tensor work on another precision path above this share of the formula means the kernel widened (X20).
MAX_OTHER_PATH_SHARE = 0.01


def counter_number(value) -> float:
    """A counter's value as a number. ncu's CSV writes text ("1,234.5"); the worker's ranges hold numbers, or
    whatever a worker whose Python the solution rewrote sends: anything that is not a number counts 0."""
    text = ("" if value is None else str(value)).replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return 0.0


def judge_tensor_precision(ranges: list[dict], expect: str, formula_flops: int) -> tuple[str, dict]:
    """Outcome and evidence for a problem whose tensor work must use `expect`, from the counter reader's
    ranges of the profiled call (one per kernel: its "range" name and metric name -> value)."""
    totals = {
        precision: sum(counter_number(r.get(metric)) for r in ranges) for precision, metric in PRECISION_METRICS.items()
    }
    evidence = {
        "kernels": [f"kernel {r.get('range', '?')}" for r in ranges],
        "tensor_ops_by_source_precision": totals,
        "formula_flops": formula_flops,
        "executed_share_of_formula": totals.get(expect, 0.0) / formula_flops,
        "kernel_time_ms": sum(counter_number(r.get("gpu__time_duration.sum")) for r in ranges) / 1e6,
    }
    if not ranges:
        return "not verified (the profiled call reported no counter range)", evidence
    others = {p: v for p, v in totals.items() if p != expect and v > MAX_OTHER_PATH_SHARE * formula_flops}
    if others:
        detail = ", ".join(f"{p} {v / formula_flops:.2f}x" for p, v in others.items())
        return f"failed (X20: tensor work on the {detail} of the formula path(s), expected {expect})", evidence
    share = evidence["executed_share_of_formula"]
    if share < MIN_EXECUTED_SHARE:
        x = "X20" if share == 0 else "X22"
        return (
            f"failed ({x}: {expect} tensor ops executed = {share:.3f} of the formula's {formula_flops:.4g})",
            evidence,
        )
    return "passed", evidence


def judge_representative(profiled_names: list[str] | None, timed_names: list[str] | None) -> tuple[str, dict]:
    """X13 outcome: did the profiled call launch the kernels the timed calls launched? One profiled call
    stands for all of them, so a solution that launches other kernels when it is profiled (having found the
    profiled call in the grader's state) fails here. Same-named kernels that branch on a runtime value are
    beyond this check (docs/integrity.md, residuals)."""
    evidence = {"profiled_call": profiled_names, "timed_calls": timed_names}
    if profiled_names is None or timed_names is None:
        return "not verified (no launch names were recorded: watch=false or CUPTI unavailable)", evidence
    profiled, timed = set(profiled_names), set(timed_names)
    only_timed, only_profiled = sorted(timed - profiled), sorted(profiled - timed)
    if not only_timed and not only_profiled:
        return "passed", evidence
    parts = ([f"timed calls launched {', '.join(only_timed)}"] if only_timed else []) + (
        [f"only the profiled call launched {', '.join(only_profiled)}"] if only_profiled else []
    )
    return f"failed (X13: the profiled call is not like the timed calls it stands for: {'; '.join(parts)})", evidence


def choose_audited_call(shapes, seed: int) -> tuple[object, int] | None:
    """(shape, draw seed) drawn with the run's secret seed, or None when the run times no shape. The draw
    seed drives `AuditReservoir` in that shape's worker, which places the audited call among its timed calls."""
    timed = [shape for shape in shapes if shape.shape_set in ("visible", "held_out")]
    if not timed:
        return None
    rng = random.Random(derive_seed(seed, "audited-call"))
    return rng.choice(timed), derive_seed(seed, "audited-call-slots")


class AuditReservoir:
    """Which timed call the counter audit stands on: each one equally likely, however many calls the shape
    turns out to get (reservoir sampling, one slot kept). Before timed call i (0-based) another call is
    profiled with probability 1/(i+1), and the last profiled call is the one kept: call i is kept when it is
    drawn and none after it is, 1/(i+1) * (i+1)/(i+2) * ... * (n-1)/n = 1/n.

    Why not a call index fixed before timing starts: the number of calls is known only when timing stops, so
    an index drawn ahead is drawn among the calls a shape surely gets, a range the solution's own pace sets
    (slow warm-up calls shrank it to the first min_calls, after which a solution counting its calls could
    switch paths unseen). Here a solution that changes anything after its first k timed calls of n is caught
    with probability 1 - k/n, and one that moves the median must change more than half of them. Slot 0 is
    always drawn, so every timed shape has its audited call before timing may stop; the expected number of
    profiled calls is the harmonic number of n (5.9 at 200 calls)."""

    def __init__(self, draw_seed: int):
        self._rng = random.Random(draw_seed)
        self.draws = 0

    def profile_before(self, timed_call_index: int) -> bool:
        """Draw for timed call `timed_call_index` (0-based, asked once per call, in order)."""
        drawn = self._rng.random() * (timed_call_index + 1) < 1.0
        self.draws += drawn
        return drawn


AFTER_THE_CALL = "after the call:"  # CounterReader.why_not when collecting the call's counters failed


def run_audits(problem, solution_shapes: list[dict], profile: str, audited: tuple | None) -> list[dict]:
    """The problem's counter audits, judged on the call the solution's own scoring worker profiled in process
    (`audit_profile` of the audited shape), each followed by the vendor-kernel verdict of that shape's calls."""
    audits = []
    shape_result = next((s for s in solution_shapes if audited and s.get("name") == audited[0].name), None)
    taken = (shape_result or {}).get("audit_profile")
    for audit in problem.spec.audits:
        record = {
            "id": "tensor_precision",
            "classes": ["X20", "X22"],
            "expect": audit.expect,
            "process": "the scoring worker itself: CUPTI range profiler, kernel replay, on timed calls drawn "
            "with the run's secret seed, the last drawn judged: each timed call equally likely "
            "(scoring/counters.py, AuditReservoir)",
        }
        if profile == "cpu":
            record["outcome"] = "not verified (CPU profile: no GPU counters to read)"
        elif audited is None:
            record["outcome"] = "not verified (this run times no shape, so there is no timed call to audit)"
        elif taken and not taken.get("ranges") and str(taken.get("why_not") or "").startswith(AFTER_THE_CALL):
            # The profiler ran, and what the solution's call did defeated it (more kernels than it takes, ranges
            # dropped): an audit the solution made impossible fails the run (X31); "not verified" is kept for
            # what the machine cannot do.
            record.update(
                shape=audited[0].name,
                outcome=f"failed (X31: the audit could not follow the solution's call: {taken['why_not']})",
            )
        elif not taken or not taken.get("ranges"):
            why = (taken or {}).get("why_not") or "the profiled call's shape reported no counters"
            record.update(shape=audited[0].name, outcome=f"not verified ({why})")
        else:
            record.update(
                shape=audited[0].name,
                timed_call_index=taken["timed_call_index"],
                timed_calls=taken.get("timed_calls"),
                calls_profiled=taken.get("calls_profiled"),
            )
            outcome, evidence = judge_tensor_precision(taken["ranges"], audit.expect, problem.flops(audited[0].params))
            record.update(outcome=outcome, evidence=evidence)
        audits.append(record)
        if taken and taken.get("ranges"):
            outcome, evidence = judge_representative(taken.get("launch_names"), taken.get("timed_calls_launch_names"))
            audits.append(
                {
                    "id": "profiled_call_representative",
                    "classes": ["X13"],
                    "shape": record.get("shape"),
                    "outcome": outcome,
                    "evidence": evidence,
                }
            )
        kernel_record = (shape_result or {}).get("kernel_record", {})
        names_outcome = kernel_record.get("vendor_kernels") or kernel_record.get("outcome") or record["outcome"]
        audits.append(
            {
                "id": "vendor_kernels",
                "classes": ["X21"],
                "shape": record.get("shape"),
                "outcome": names_outcome,
                "evidence": {"kernels": kernel_record.get("kernel_names", [])},
            }
        )
    return audits
