"""The judge's scoring of one solution's shapes: inputs, checks, timing, verdicts. No solution code here.

For each shape the judge makes the weights and every call's inputs with the run's secret seeds, keeps
them in its own memory (the pristine copies), and has its worker (scoring/judge/link.py) run the solution
on shared copies. Every call (a correctness check, a warm-up, a timed or an audited call) takes the same
path on the worker's side, so nothing the solution can observe tells them apart (docs/integrity.md, X13), except
that an audited call runs under the profiler. After every call the judge, in its own process, checks the
output contract from the worker's descriptor (X05), its own snapshot of the output taken when the worker's
DONE completed (so work finishing later cannot change what is judged, X10), that the shared inputs are
unchanged (X04), and the problem's cheap verification (`verify_call`: Freivalds for the GEMMs, sampled rows
otherwise); the correctness seeds, a random sample of timed calls drawn after each call returns, and the
last call are also compared with the full fp64 reference. The statistics are computed here from the
worker's per-call event times, and each timed shape is cross-checked against the judge's own clock
(scoring/judge/cross_check.py, X30).
"""

from __future__ import annotations

import random
import time

import torch

from scoring import vendor_kernels
from scoring.audit import AuditReservoir
from scoring.checking import CheckStats, compare, worst
from scoring.gpu_state import TIMED_WINDOW_KEY
from scoring.judge.cross_check import judge_clock_outcome, judged_when_the_gate_timed_out
from scoring.judge.link import CallReport, Calibration, WorkerLink
from scoring.problem import Problem
from scoring.seeds import derive_seed
from scoring.spec import Shape
from scoring.timing import CallTiming, TimingPolicy, repeat_until_stable

KERNEL_ACTIVITY_SHARE = 0.2  # the calls whose kernel times CUPTI records (scoring/kernel_record.py)


class CallFailed(Exception):
    """A call's output failed a check; `against` says which, `classes` the exploit classes it signals."""

    def __init__(self, stats: CheckStats, against: str, status: str = "incorrect"):
        super().__init__(stats.detail)
        self.stats, self.against, self.status = stats, against, status


def _failed(detail: str) -> CheckStats:
    return CheckStats(False, float("inf"), float("inf"), float("inf"), 0, 0, detail)


def judged_kernel_record(worker_record: dict, vendor_names: str) -> dict:
    """The worker's kernel record with the judge's verdicts in it. A record with kernels gets the judge's
    reading of their names; a note (no recorder in that worker) can only say what was not verified."""
    record = dict(worker_record)
    if "vendor_kernels" in record:
        record["vendor_kernels"] = vendor_names
    outcome = str(record.get("outcome", ""))[:500]
    if "vendor_kernels" not in record and not outcome.startswith("not verified"):
        outcome = f"not verified (the worker recorded no kernels: {outcome!r})"
    record["outcome"] = outcome
    return record


class ShapeJudge:
    """Scores the task's shapes for one solution, through its worker (see the module docstring)."""

    def __init__(self, task: dict, problem: Problem, link: WorkerLink, calibration: Calibration):
        self.task = task
        self.problem = problem
        self.device = torch.device(task["device"])
        self.tolerance = problem.spec.tolerance
        self.link = link
        self.calibration = calibration
        self.policy = TimingPolicy(**task["timing"])
        self.verify = getattr(problem.module, "verify_call", None) if task.get("watch", True) else None
        self.verify_method = getattr(problem.module, "VERIFY_METHOD", None) if self.verify else None
        self.sample_rng = random.Random(derive_seed(task["seed"], "timed-call-sample"))
        self.activity_rng = random.Random(derive_seed(task["seed"], "kernel-activity"))
        self.audit = task.get("audit")  # {"shape": name, "draw_seed": its AuditReservoir's seed}, or None
        self.watch = task.get("watch", True) and self.device.type == "cuda"
        # The reference runs in full precision: this process never runs solution code to change it (X15).
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.call_number = 0

    def _generator(self, *labels) -> torch.Generator:
        gen = torch.Generator(device=self.device)
        gen.manual_seed(derive_seed(self.task["seed"], *labels) % 2**63)
        return gen

    # -- one call -------------------------------------------------------------------------------------
    def call(self, fresh: dict, audited: bool = False) -> CallReport:
        self.call_number += 1
        record_kernels = self.watch and self.activity_rng.random() < KERNEL_ACTIVITY_SHARE
        return self.link.call(self.call_number, fresh, audited, record_kernels)

    def check(
        self, shape: Shape, report: CallReport, weights: dict, pristine: dict, against_reference: bool, counts: dict
    ) -> CheckStats | None:
        """The checks every call gets (contract, inputs, verification), and the fp64 reference when asked;
        raises CallFailed. Returns the reference comparison, if one was made."""
        if report.contract_error:
            raise CallFailed(_failed(f"X05: output contract: {report.contract_error}"), "the output contract")
        if not report.inputs_unchanged:
            raise CallFailed(
                _failed("X04: input mutation: the solution modified its inputs in place"), "the input check"
            )
        out = report.out
        verdict = None
        if self.verify is not None:
            gen = self._generator(shape.name, "verify", counts["verified"])
            verdict = self.verify(out, weights, pristine, gen, self.tolerance)
            counts["verified"] += 1
        if not against_reference:
            if verdict is not None and not verdict.passed:
                raise CallFailed(verdict, "verification")
            return None
        ref = self.problem.module.reference(weights, pristine)
        custom = self.problem.custom_check
        stats = custom(out, ref, weights, pristine, self.tolerance) if custom else compare(out, ref, self.tolerance)
        counts["against_reference"] += 1
        if verdict is not None and verdict.passed != stats.passed:
            counts["disagreements"] += 1
        if not stats.passed:
            raise CallFailed(stats, "the fp64 reference")
        return stats

    # -- phases ---------------------------------------------------------------------------------------
    def correctness(self, shape: Shape, counts: dict) -> tuple[list[CheckStats], dict, float, list[str]]:
        """Every correctness seed on fresh weights and inputs: the stats, the last weights, the longest
        prepare and the names prepare launched."""
        params = dict(shape.params)
        stats, prepare_ms, names = [], [], set()
        weights = None
        for seed_index in range(self.task["check_seeds"]):
            gen = self._generator(shape.name, "check", seed_index)
            weights = self.problem.module.make_weights(params, gen, self.device)
            prepared = self.link.prepare(weights)
            prepare_ms.append(prepared["prepare_ms"])
            names |= set(prepared.get("launch_names") or ())
            inputs = self.problem.module.make_inputs(params, weights, gen, self.device)
            report = self.call(inputs)
            try:
                stats.append(self.check(shape, report, weights, inputs, True, counts))
            except CallFailed as failed:
                stats.append(failed.stats)
                break
        return stats, weights, max(prepare_ms), sorted(names)

    def timed(self, shape: Shape, weights: dict, counts: dict, phases_s: dict, clock: dict):
        """Warm up, then time calls on fresh inputs until stable."""
        params = dict(shape.params)
        gen = self._generator(shape.name, "timed")
        reservoir = (
            AuditReservoir(self.audit["draw_seed"]) if self.audit and self.audit["shape"] == shape.name else None
        )
        timed_calls = [0]
        timed_normwise = counts["timed_normwise"]
        audit = {}

        def one_call(kind: str) -> CallTiming:
            inputs = self.problem.module.make_inputs(params, weights, gen, self.device)
            report = self.call(inputs, audited=kind == "audited")
            timing = CallTiming(**report.worker_timing)
            if kind == "audited":  # checked like any call; its time (kernel replay) is not kept
                audit.clear()
                audit.update(
                    report.audit_profile or {}, timed_call_index=timed_calls[0], calls_profiled=reservoir.draws
                )
                self.check(shape, report, weights, inputs, False, counts)
                return timing
            if kind == "timed":
                timed_calls[0] += 1
                clock["timed"][self.call_number] = timing.device_ms
                reading = report.clock
                if reading is not None:
                    clock["gaps_us"].append((reading.host_span_ms - timing.device_ms) * 1e3)
                    clock["spans_ms"].append(reading.host_span_ms)
                    clock["back_us"].append(reading.back_ms * 1e3)
                    clock["gpu_gaps_us"].append((reading.gpu_span_ms - timing.device_ms) * 1e3)
                    clock["snapshot_gaps_us"].append((reading.snapshot_span_ms - timing.device_ms) * 1e3)
                    clock["refill_flush_us"].append(reading.refill_flush_ms * 1e3)
                    clock["gate_timed_out"].append(int(reading.gate_timed_out))
                    clock["kernels_recorded"].append(int(report.kernels_recorded))
                    timing = judged_when_the_gate_timed_out(timing, reading, self.calibration)
            clock["host_ms"].append(report.host_ms)
            against_reference = kind == "last" or (
                kind == "timed" and self.sample_rng.random() < self.task["timed_check_rate"]
            )
            stats = self.check(shape, report, weights, inputs, against_reference, counts)
            if stats is not None:
                timed_normwise.append(stats.normwise_err)
            return timing

        warm_start = time.perf_counter()
        warm = 0
        while warm < self.policy.warmup_calls or time.perf_counter() - warm_start < self.policy.warmup_s:
            one_call("warm-up")
            warm += 1
        timed_start = time.perf_counter()
        phases_s["warm_up"] = timed_start - warm_start

        def timed_call() -> CallTiming:
            if reservoir is not None and reservoir.profile_before(timed_calls[0]):
                one_call("audited")
            return one_call("timed")

        window_start_s = time.monotonic()  # one clock for every process: the scorer's GPU readings
        stats = repeat_until_stable(timed_call, self.policy)
        window = [window_start_s, time.monotonic()]
        last_start = time.perf_counter()
        phases_s["timed_calls"] = last_start - timed_start
        one_call("last")  # always compared with the reference too
        phases_s["last_call"] = time.perf_counter() - last_start
        if audit:
            audit["timed_calls"] = timed_calls[0]
        return stats, warm, window, audit

    # -- one shape ------------------------------------------------------------------------------------
    def score_shape(self, shape: Shape) -> dict:
        result: dict = {"name": shape.name, "shape_set": shape.shape_set, "params": dict(shape.params)}
        started = time.perf_counter()
        counts = {"verified": 0, "against_reference": 0, "disagreements": 0, "timed_normwise": []}
        dims, dtype = self.problem.module.output_spec(dict(shape.params))
        self.link.shape_start(tuple(dims), dtype)
        stats, weights, prepare_ms, prepare_names = self.correctness(shape, counts)
        result["prepare_ms"] = prepare_ms
        phases_s = result["phases_s"] = {"checks": time.perf_counter() - started}
        summary = worst(stats)
        result["check"] = {**summary.as_dict(), "seeds_checked": len(stats)}
        clock = {
            "timed": {},
            "gaps_us": [],
            "spans_ms": [],
            "host_ms": [],
            "back_us": [],
            "gpu_gaps_us": [],
            "snapshot_gaps_us": [],
            "refill_flush_us": [],
            "gate_timed_out": [],
            "kernels_recorded": [],
        }
        if not summary.passed:
            classes = "X01/X24" if shape.shape_set == "visible" else "X23/X01/X24"
            if summary.detail.startswith(("X04", "X05")):
                classes = ""
            result.update(status="incorrect", detail=f"{classes + ': ' if classes else ''}{summary.detail}")
            return self._finish(result, counts, clock, prepare_names, None)
        audit = None
        if shape.shape_set in self.task["timed_sets"]:
            try:
                timing, warmup_calls, timed_window, audit = self.timed(shape, weights, counts, phases_s, clock)
            except CallFailed as failed:
                result.update(
                    status="incorrect",
                    detail=f"X02/X03/X13: a timed call failed {failed.against}: {failed.stats.detail}",
                    check={**failed.stats.as_dict(), "seeds_checked": len(stats)},
                )
                return self._finish(result, counts, clock, prepare_names, None)
            result.update(timing=timing.as_dict(), warmup_calls=warmup_calls, **{TIMED_WINDOW_KEY: timed_window})
            result["check"]["timed_calls_checked"] = len(counts["timed_normwise"])
            result["check"]["timed_worst_normwise_err"] = max(counts["timed_normwise"], default=None)
            outlived = timing.outlived_detail(self.task.get("idle_tail_ms", 0.0))
            if outlived:
                result.update(status="integrity", detail=outlived)
                return self._finish(result, counts, clock, prepare_names, audit)
        result = self._finish(result, counts, clock, prepare_names, audit)
        if result.get("status"):
            return result
        result["status"] = "passed"
        result["wall_s"] = time.perf_counter() - started
        return result

    def _finish(self, result: dict, counts: dict, clock: dict, prepare_names: list[str], audit: dict | None) -> dict:
        """The shape's watch record (verification counts, the worker's kernel record, the judge's clock), and
        the verdicts drawn from them when the shape has none yet."""
        record_start = time.perf_counter()
        record = self.link.shape_end(clock["timed"], prepare_names)
        if "timing" in result:  # the worker resolving its kernel record: a phase of a timed shape's wall time
            result["phases_s"]["kernel_record"] = time.perf_counter() - record_start
        if self.verify is not None:
            method = self.verify_method
        else:
            method = (
                "none (watch=false)" if not self.task.get("watch", True) else "none (the problem has no verify_call)"
            )
        result["verification"] = {
            "method": method,
            "calls_verified": counts["verified"],
            "calls_checked_against_reference": counts["against_reference"],
            "disagreements_with_the_reference": counts["disagreements"],
        }
        names = record.get("kernel_names")
        vendor_names = vendor_kernels.judge(
            [str(n) for n in names] if isinstance(names, list) else [], "launched by the solution"
        )
        # The record is the worker's evidence; every verdict in it is the judge's: on the CPU profile the judge's
        # own note, otherwise its reading of the names (the vendor_kernels audit reads "vendor_kernels" first and
        # never takes an outcome from the worker: red team round 4 sent a number there).
        result["kernel_record"] = self.link.kernel_record_note() or judged_kernel_record(
            record["kernel_record"], vendor_names
        )
        clock_outcome, clock_record = judge_clock_outcome(
            clock, self.calibration, result.get("timing", {}).get("median_ms")
        )
        result["judge_clock"] = clock_record
        if clock_record.get("charged_us"):  # the judge's time, less the honest spread, where the report was shorter
            timing = result["timing"]
            timing["reported_median_ms"] = timing["median_ms"]
            timing["median_ms"] = timing["median_ms"] + clock_record["charged_us"] / 1e3
        if audit:
            audit["timed_calls_launch_names"] = record.get("timed_launch_names")
            result["audit_profile"] = audit
        vendor = vendor_names if self.task["enforce_forbidden"] else "passed"
        if result.get("status") is None and "timing" in result:
            if clock_outcome.startswith("failed"):
                result.update(status="integrity", detail=clock_outcome[len("failed (") : -1])
            elif record.get("outlived"):
                result.update(status="integrity", detail=record["outlived"])
            elif vendor != "passed":
                result.update(status="forbidden_op", detail=vendor[len("failed (") : -1])
        elif result.get("status") is None and vendor != "passed":
            result.update(status="forbidden_op", detail=vendor[len("failed (") : -1])
        return result
