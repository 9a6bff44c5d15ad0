"""The child process that runs one solution: `python -m scoring.worker RESULT_FD`, its order on stdin.

The parent (scoring/isolation.py) gives one of these each solution and a fresh one after a crash; it may
have started it ahead, while the previous system was timed (scoring/standby.py): the order (the task file and
the log) comes on stdin once the imports are done. Messages go back as JSON lines on RESULT_FD, a pipe the
parent made; the solution's stdout and stderr go to the log file, so nothing it prints can pass for a
result. Everything the grader relies on (the problem's input generator and reference, the timer, the
checker) is loaded and captured before the solution is imported.

Every call of the solution (a correctness check, a warm-up, a timed or an audited call) takes the same
path, so nothing it can observe tells them apart (INTEGRITY.md X13): fresh inputs made outside the timed
region, the allocator's free blocks of the output's size poisoned, the L2 flush and launch pad, CUDA
events, the forbidden operators refused for the whole process at the dispatcher (scoring/guard.py), its
kernels recorded by CUPTI (scoring/kernel_record.py), the output contract, input mutation, and a cheap
verification of the output (the problem's `verify_call`: Freivalds for the GEMMs, sampled rows otherwise).
Which calls are also compared with the full fp64 reference is decided after the call returns: the
correctness seeds, a random sample of timed calls, and the last one, on the previous call's tensors
refilled in place. Every GPU worker loads CUPTI's range profiler (scoring/counters.py) before the solution is
imported; in the solution's worker calls drawn with the run's secret seed among one shape's timed calls run with
it switched on (kernel replay: the call's outputs are those of an unprofiled call; its time is not kept), and
the last drawn call's tensor-pipe counters are the counter audit (scoring/audit.py, AuditReservoir). No other
process, profiler or environment is involved.

An exception the solution raises on the host (an assert, an unsupported size, a compiler error) fails its
shape, and this worker goes on to the next once `Runner.recover` has charged the failed call with what it
did before it raised (refused operators, tampering, vendor kernels) and dropped its kernel records; a CUDA
error, a crash or an exit ends the worker, and the next shape runs in a fresh one (scoring/isolation.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import math
import os
import random
import sys
import time
import traceback
from pathlib import Path

import torch

from scoring import interpreter_fixes, vendor_kernels
from scoring.audit import AuditReservoir
from scoring.checking import (
    CheckStats,
    OutputContractError,
    check_output_contract,
    compare,
    worst,
)
from scoring.counters import CounterReader
from scoring.gpu_state import TIMED_WINDOW_KEY
from scoring.guard import ForbiddenOpError, ForbiddenOps, TamperSnapshot
from scoring.import_audit import audit_files, loaded_files_under
from scoring.kernel_record import KERNEL_ACTIVITY_SHARE, CallWindow, KernelRecorder, ShapeKernelSummary
from scoring.problem import Problem, import_file, load_problem
from scoring.seeds import derive_seed
from scoring.spec import Shape
from scoring.timing import (
    CallTiming,
    CpuTimer,
    GpuTimer,
    TimingPolicy,
    repeat_until_stable,
)

EXIT_FRESH_PROCESS_NEEDED = 3


class Channel:
    """JSON lines on the parent's pipe."""

    def __init__(self, fd: int):
        self.fd = fd

    def send(self, event: str, **payload) -> None:
        line = json.dumps({"event": event, **payload}, default=str) + "\n"
        data = line.encode()
        while data:
            written = os.write(self.fd, data)
            data = data[written:]


class InputMutationError(Exception):
    """The solution wrote into a tensor it was given (X04)."""


class StaticAuditError(Exception):
    """The solution's source imports a forbidden module or names a forbidden operator (X21)."""


class TamperError(Exception):
    """The solution replaced a grader callable or flipped a backend flag (X11/X15)."""


class L2ResidencyError(Exception):
    """The solution set aside persisting L2 or put a persisting window on the timed stream (X12)."""


def _clone_all(tensors: dict) -> dict:
    return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in tensors.items()}


def _refill(given: dict, fresh: dict) -> dict:
    """Clones of `fresh`, except that a tensor whose shape and dtype match `given`'s is written into
    `given`'s tensor (same object, same storage). A shape that varies per call (a block table's width)
    gets a new tensor."""
    def reuse(key, tensor):
        old = given.get(key)
        if isinstance(old, torch.Tensor) and old.shape == tensor.shape and old.dtype == tensor.dtype:
            return old.copy_(tensor)
        return tensor.clone()

    return {key: reuse(key, v) if isinstance(v, torch.Tensor) else v for key, v in fresh.items()}


def _same_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal element by element, a NaN equal to a NaN (torch.equal calls any NaN a change)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not (a.is_floating_point() or a.is_complex()):
        return torch.equal(a, b)
    return bool(((a == b) | (a.isnan() & b.isnan())).all())


def _assert_unchanged(given: dict, pristine: dict, what: str) -> None:
    for key, tensor in pristine.items():
        if isinstance(tensor, torch.Tensor) and not _same_values(given[key], tensor):
            raise InputMutationError(f"the solution modified its {what} '{key}' in place")


def poison_uninitialised_memory_everywhere() -> None:
    """CPU profile: every torch.empty* of the whole worker comes back NaN / max-int, so unwritten outputs
    show. Set once, before the solution is imported, for every call alike (the CPU allocator recycles no
    blocks that `_poison_free_blocks` could fill)."""
    from torch.utils import deterministic

    torch.use_deterministic_algorithms(True, warn_only=True)
    deterministic.fill_uninitialized_memory = True


POISON_BLOCKS = 2  # the solution's first allocations of the output's size: its output and a same-size buffer


class Runner:
    """Scores the task's shapes for one solution inside this process (see the module docstring)."""

    def __init__(self, task: dict, recorder: KernelRecorder | None, counters: CounterReader | None = None):
        self.task = task
        self.device = torch.device(task["device"])
        self.problem: Problem = load_problem(task["problem_dir"])
        self.tolerance = self.problem.spec.tolerance
        self.guard = ForbiddenOps(self.problem.spec.forbidden_ops if task["enforce_forbidden"] else ())
        self.policy = TimingPolicy(**task["timing"])
        self.recorder = recorder if recorder is not None and recorder.available else None
        self.recorder_note = recorder.describe() if recorder is not None else \
            {"tool": None, "outcome": "not verified (CPU profile: no kernels to record)" if self.device.type == "cpu"
             else "not verified (watch=false)"}
        self.verify = getattr(self.problem.module, "verify_call", None) if task.get("watch", True) else None
        self.verify_method = getattr(self.problem.module, "VERIFY_METHOD", None) if self.verify else None
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
            self.timer = GpuTimer(self.device, task["l2_bytes"])
        else:
            self.timer = CpuTimer()
        # The reference runs in full precision whatever the solution later sets (X15).
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.snapshot = TamperSnapshot()
        self.sample_rng = random.Random(derive_seed(task["seed"], "timed-call-sample"))
        self.activity_rng = random.Random(derive_seed(task["seed"], "kernel-activity"))
        self.import_launch_names: set[str] = set()
        self.audit = task.get("audit")  # {"shape": name, "draw_seed": its AuditReservoir's seed}, or None
        self.counters = counters
        self.audit_profile: dict | None = None  # set by the profiled call, taken by its shape's result
        # Measured on an H100 (results/watch/h100_sxm/diag_*): without it, moe_swiglu's first shape timed 5% slow.
        self._pool = torch.cuda.MemPool() if self.device.type == "cuda" else None
        self.solution = None

    # -- solution entry points -------------------------------------------------------------------------
    def import_solution(self) -> float:
        start = time.perf_counter()
        self.guard.install()  # for the rest of the process: import, prepare and every call
        with self._solution_code():
            self.solution = import_file(Path(self.task["solution_path"]), "ceiling_solution", folder_importable=True)
        self.import_launch_names = self.recorder.take_launch_names() if self.recorder else set()
        if not callable(getattr(self.solution, "run", None)):
            raise AttributeError(f"{self.task['solution_path']} defines no run(state, **inputs) function")
        self._check_attempts()
        self._check_tamper()
        self._audit_source()
        return (time.perf_counter() - start) * 1e3

    def _audit_source(self) -> None:
        if not self.task["enforce_forbidden"]:
            return
        folder = Path(self.task["solution_path"]).parent
        findings = audit_files(loaded_files_under(folder, sys.modules), self.problem.spec.forbidden_imports,
                               self.guard.names, root=folder)
        if findings:
            raise StaticAuditError("X21: " + "; ".join(str(f) for f in findings[:5]))

    def _check_tamper(self) -> None:
        changes = self.snapshot.changes()
        if changes:
            self.snapshot.restore_flags()
            raise TamperError("; ".join(changes))

    def _check_attempts(self) -> None:
        """A forbidden operator the solution reached fails it even if it caught the refusal."""
        attempts = self.guard.take_attempts()
        if attempts:
            raise ForbiddenOpError(attempts[0])

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _solution_code(self):
        """Around every run of solution code: the names of the kernels it launches are kept."""
        return self.recorder.listening() if self.recorder else contextlib.nullcontext()

    def grader(self):
        """The grader's own use of the problem's functions (inputs, reference), with the real operators."""
        return self.guard.suspended()

    def prepare(self, weights: dict):
        """One-time preparation (weight repacking): timed and reported, never scored."""
        prepare = getattr(self.solution, "prepare", None)
        start = time.perf_counter()
        with self._solution_code():
            state = prepare(**_clone_all(weights)) if prepare else _clone_all(weights)
        self._sync()
        self._check_attempts()
        self._check_tamper()
        return state, (time.perf_counter() - start) * 1e3

    def _poison_free_blocks(self, shape: Shape) -> None:
        """Fill blocks of the output's size with 0xFF bytes (NaN in every float format, -1 in integers) and
        free them, so that the caching allocator hands them to the solution's next allocations of that size:
        an output it leaves partly unwritten shows NaN. Done before every call alike, outside the timed region."""
        if self.device.type != "cuda":
            return  # the CPU profile poisons every allocation (poison_uninitialised_memory_everywhere)
        dims, dtype = self.problem.module.output_spec(dict(shape.params))
        size_bytes = math.prod(dims) * torch.empty((), dtype=dtype).element_size()
        blocks = [torch.empty(size_bytes, dtype=torch.uint8, device=self.device).fill_(0xFF)
                  for _ in range(POISON_BLOCKS)]
        del blocks

    def call(self, shape: Shape, state, given: dict, audited: bool = False) -> tuple[object, CallTiming, CallWindow | None]:
        """One call of the solution, the same for every kind of call (module docstring). With `audited`, the
        counters are read during the call (its timing is then not kept: kernel replay)."""
        residency = self.timer.residency_detail()  # before the reset, which leaves these settings in force
        if residency:
            raise L2ResidencyError(residency)
        self._poison_free_blocks(shape)
        # Kernel activity on a random part of the calls (scoring/kernel_record.py), drawn before the call.
        kernels_recorded = self.recorder is not None and self.activity_rng.random() < KERNEL_ACTIVITY_SHARE
        if self.recorder:
            self.recorder.kernel_activity(kernels_recorded)
        pad_start = self.recorder.now_ns() if self.recorder else 0
        self.timer.before_call()
        window_start = self.recorder.now_ns() if self.recorder else 0
        profiled: list = []
        if audited and self.counters is not None:
            def run(state, **inputs):
                out, ranges = self.counters.profile(lambda: self.solution.run(state, **inputs))
                profiled.append(ranges)
                return out
        else:
            run = self.solution.run
        collecting = gc.isenabled()
        gc.disable()  # a collection inside the window would stall the launch past the pad; off for every call
        try:
            with self._solution_code():
                out, timing = self.timer.time_call(lambda: run(state, **given))
        finally:
            if collecting:
                gc.enable()
        # Resolved into kernels once the shape's calls are done (ShapeKernelSummary.resolve): no CUPTI flush
        # between calls.
        window = CallWindow(pad_start, window_start, self.recorder.now_ns(),
                            launch_names=frozenset(self.recorder.take_launch_names()),
                            kernels_recorded=kernels_recorded) if self.recorder else None
        self._check_attempts()
        self._check_tamper()
        if audited:  # a later audited call of the shape replaces it (AuditReservoir keeps the last drawn)
            self.audit_profile = {"ranges": profiled[0] if profiled else [],
                                  "why_not": None if self.counters is None else self.counters.why_not}
            if self.counters is None:
                self.audit_profile["why_not"] = "no counter reader in this worker (watch=false or CPU profile)"
        return out, timing, window

    # -- checks -----------------------------------------------------------------------------------------
    def after_call(self, shape: Shape, out, weights: dict, given: dict, pristine: dict, against_reference: bool,
                   counts: dict) -> CheckStats | None:
        """The checks every call gets (contract, inputs, verification), and the fp64 reference when asked;
        raises _CallFailed. Returns the reference comparison, if one was made."""
        dims, dtype = self.problem.module.output_spec(dict(shape.params))
        check_output_contract(out, tuple(dims), dtype, self.device)
        _assert_unchanged(given, pristine, "input")
        verdict = None
        if self.verify is not None:
            gen = self._generator(shape.name, "verify", counts["verified"])
            with self._grader_memory():
                verdict = self.verify(out, weights, pristine, gen, self.tolerance)
            counts["verified"] += 1
        if not against_reference:
            if verdict is not None and not verdict.passed:
                raise _CallFailed(verdict, "verification")
            return None
        # The reference decides where it runs; a verification that disagrees with it is counted (a verifier
        # must never fail a correct output: the result shows whether it did).
        with self.grader():
            ref = self.problem.module.reference(weights, pristine)
            custom = self.problem.custom_check
            stats = custom(out, ref, weights, pristine, self.tolerance) if custom else compare(out, ref, self.tolerance)
        counts["against_reference"] += 1
        if verdict is not None and verdict.passed != stats.passed:
            counts["disagreements"] += 1
        if not stats.passed:
            raise _CallFailed(stats, "the fp64 reference")
        return stats

    def _grader_memory(self):
        """The grader's temporaries (verification) in a memory pool of their own, so the blocks they leave
        cached never change which blocks the solution's next allocations get."""
        if self._pool is None:
            return contextlib.nullcontext()
        return torch.cuda.use_mem_pool(self._pool)

    def _generator(self, *labels) -> torch.Generator:
        gen = torch.Generator(device=self.device)
        gen.manual_seed(derive_seed(self.task["seed"], *labels) % 2**63)
        return gen

    def correctness(self, shape: Shape, record: ShapeKernelSummary, counts: dict) -> tuple[list[CheckStats], dict, float]:
        """Check every seed on fresh weights and inputs; return the stats, the last state and prepare time."""
        params = dict(shape.params)
        stats, prepare_ms = [], []
        state = weights = None
        for seed_index in range(self.task["check_seeds"]):
            gen = self._generator(shape.name, "check", seed_index)
            with self.grader():
                weights = self.problem.module.make_weights(params, gen, self.device)
            state, ms = self.prepare(weights)
            prepare_ms.append(ms)
            if self.recorder:
                record.launch_names |= self.recorder.take_launch_names() | self.import_launch_names
            with self.grader():
                inputs = self.problem.module.make_inputs(params, weights, gen, self.device)
            given = _clone_all(inputs)
            out, _, window = self.call(shape, state, given)
            record.note(window)
            try:
                stats.append(self.after_call(shape, out, weights, given, inputs, True, counts))
            except _CallFailed as failed:
                stats.append(failed.stats)
                break
            finally:
                del out
        return stats, {"state": state, "weights": weights}, max(prepare_ms)

    def timed(self, shape: Shape, prepared: dict, record: ShapeKernelSummary, counts: dict, phases_s: dict):
        """Warm up, then time calls on fresh inputs until stable; returns stats, the warm-up count and the
        timed calls' [start, end] on time.monotonic, and adds the warm-up's, the timed calls' and the last
        call's wall seconds to `phases_s`."""
        params = dict(shape.params)
        state, weights = prepared["state"], prepared["weights"]
        gen = self._generator(shape.name, "timed")
        reservoir = AuditReservoir(self.audit["draw_seed"]) \
            if self.audit and self.audit["shape"] == shape.name else None
        last_given: dict = {}
        timed_calls = [0]
        timed_launch_names: set[str] = set()  # every timed call's, for the audited call's comparison
        timed_normwise = counts["timed_normwise"]

        def one_call(kind: str) -> CallTiming:
            """kind: "warm-up", "audited", "timed" or "last". Whether a call is compared with the reference is
            drawn after it returns, so no frame on the stack while the solution runs holds the decision."""
            with self.grader():
                inputs = self.problem.module.make_inputs(params, weights, gen, self.device)
            given = _refill(last_given, inputs) if kind == "last" else _clone_all(inputs)
            last_given.clear()
            last_given.update(given)
            out, timing, window = self.call(shape, state, given, audited=kind == "audited")
            if kind == "audited":  # checked like any call; its time (kernel replay) is not kept
                record.note(window)
                self.audit_profile.update(timed_call_index=timed_calls[0], calls_profiled=reservoir.draws,
                                          launch_names=sorted(window.launch_names) if window else None)
                self.after_call(shape, out, weights, given, inputs, False, counts)
                return timing
            if kind == "timed":
                timed_calls[0] += 1
                timed_launch_names.update(window.launch_names if window else ())
                record.note(dataclasses.replace(window, timed=True, event_ms=timing.device_ms) if window else None)
            else:
                record.note(window)
            against_reference = kind == "last" or (kind == "timed" and
                                                   self.sample_rng.random() < self.task["timed_check_rate"])
            stats = self.after_call(shape, out, weights, given, inputs, against_reference, counts)
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
            # The audited call stands in the place of the timed call after it (INTEGRITY X13: AuditReservoir).
            if reservoir is not None and reservoir.profile_before(timed_calls[0]):
                one_call("audited")
            return one_call("timed")

        window_start_s = time.monotonic()  # one clock for every process: the scorer's GPU readings (gpu_state.py)
        stats = repeat_until_stable(timed_call, self.policy)
        window = [window_start_s, time.monotonic()]
        last_start = time.perf_counter()
        phases_s["timed_calls"] = last_start - timed_start
        # The last call is always checked against the reference too, and it gets the previous call's input
        # tensors refilled with new values: a cache keyed on the tensor's identity, address or shape (X02)
        # answers it with a stale output whatever the allocator recycles.
        one_call("last")
        phases_s["last_call"] = time.perf_counter() - last_start
        if reservoir is not None and self.audit_profile is not None:
            self.audit_profile.update(timed_calls=timed_calls[0], timed_calls_launch_names=sorted(timed_launch_names)
                                      if self.recorder else None)
        return stats, warm, window

    # -- one shape --------------------------------------------------------------------------------------
    def score_shape(self, shape: Shape) -> dict:
        result: dict = {"name": shape.name, "shape_set": shape.shape_set, "params": dict(shape.params)}
        started = time.perf_counter()
        record = ShapeKernelSummary()
        counts = {"verified": 0, "against_reference": 0, "disagreements": 0, "timed_normwise": []}
        stats, prepared, prepare_ms = self.correctness(shape, record, counts)
        result["prepare_ms"] = prepare_ms
        # Where the shape's wall time went (issue 17: measured before anything is made faster). Grader-side
        # clock reads between calls, never inside a timed window.
        phases_s = result["phases_s"] = {"checks": time.perf_counter() - started}
        summary = worst(stats)
        result["check"] = {**summary.as_dict(), "seeds_checked": len(stats)}
        if not summary.passed:
            # Zeros, constants, copied inputs (X01) and named-but-skipped algorithms (X24) fail here; on a
            # held-out or property shape, so does a kernel specialised to the visible shapes (X23).
            classes = "X01/X24" if shape.shape_set == "visible" else "X23/X01/X24"
            result.update(status="incorrect", detail=f"{classes}: {summary.detail}")
            return self._with_watch(result, record, counts)
        if shape.shape_set in self.task["timed_sets"]:
            try:
                timing, warmup_calls, timed_window = self.timed(shape, prepared, record, counts, phases_s)
            except _CallFailed as failed:
                result.update(status="incorrect", detail=f"X02/X03/X13: a timed call failed {failed.against}: "
                                                         f"{failed.stats.detail}",
                              check={**failed.stats.as_dict(), "seeds_checked": len(stats)})
                return self._with_watch(result, record, counts)
            result.update(timing=timing.as_dict(), warmup_calls=warmup_calls, **{TIMED_WINDOW_KEY: timed_window})
            result["check"]["timed_calls_checked"] = len(counts["timed_normwise"])
            result["check"]["timed_worst_normwise_err"] = max(counts["timed_normwise"], default=None)
            resolve_start = time.perf_counter()
            self._resolve(record)
            phases_s["kernel_record"] = time.perf_counter() - resolve_start
            outlived = timing.outlived_detail(self.timer.idle_tail_ms) or \
                record.outside_timed_interval([timing.median_ms])
            if outlived:
                result.update(status="integrity", detail=outlived)
                return self._with_watch(result, record, counts)
        self._resolve(record)
        # Reference lines use vendor libraries by design: only the solution is judged.
        vendor = record.vendor_outcome() if self.recorder and self.task["enforce_forbidden"] else "passed"
        if vendor != "passed":
            result.update(status="forbidden_op", detail=vendor[len("failed ("):-1])
            return self._with_watch(result, record, counts)
        result["status"] = "passed"
        result["wall_s"] = time.perf_counter() - started
        return self._with_watch(result, record, counts)

    def recover(self) -> str | None:
        """After the solution raised on a shape: leave this process as the next shape expects it, or say why it
        cannot be (the next shape then gets a fresh process, 5-13 s of start-up on an H100). Drops what the
        failed shape's calls left behind: their launch names and kernel records (else they would be counted in
        the next shape's record), a refused operator's attempt and the audit profile. Raises ForbiddenOpError or
        TamperError when the failed call had reached a forbidden operator, launched a vendor library kernel or
        tampered before it raised."""
        gc.collect()  # the traceback's frames held the failed call's tensors
        try:
            self._sync()
            if self.device.type == "cuda" and torch.cuda.is_current_stream_capturing():
                return "the solution left a CUDA stream capture open"
        except Exception as exc:  # noqa: BLE001 -- any failure here: a fresh process
            return f"the device did not synchronise after the error ({type(exc).__name__})"
        self.audit_profile = None
        launched: set[str] = set()
        if self.recorder:
            self.recorder.kernel_activity(False)
            launched = self.recorder.take_launch_names()  # the failed call's: charged to it, not to the next
            self.recorder.collect([])  # flushes CUPTI and drops every record outside the (no) windows
        self._check_tamper()  # first: it also restores flipped flags, which a fresh process would not need
        self._check_attempts()
        vendor = vendor_kernels.judge(launched, "launched by the solution") if self.task["enforce_forbidden"] \
            else "passed"  # reference lines use vendor libraries by design
        if vendor != "passed":
            raise ForbiddenOpError(vendor[len("failed ("):-1])
        return None

    def _resolve(self, record: ShapeKernelSummary) -> None:
        if self.recorder:
            record.resolve(self.recorder)

    def _with_watch(self, result: dict, record: ShapeKernelSummary, counts: dict) -> dict:
        """The shape's watch record: the verification counts and method, and the kernel record."""
        self._resolve(record)
        if self.verify is not None:
            method = self.verify_method
        else:
            method = "none (watch=false)" if not self.task.get("watch", True) else "none (the problem has no verify_call)"
        result["verification"] = {"method": method, "calls_verified": counts["verified"],
                                  "calls_checked_against_reference": counts["against_reference"],
                                  "disagreements_with_the_reference": counts["disagreements"]}
        result["kernel_record"] = record.as_dict() if self.recorder else dict(self.recorder_note)
        if self.audit_profile is not None:
            result["audit_profile"], self.audit_profile = self.audit_profile, None
        return result


class _CallFailed(Exception):
    """A call's output failed its verification or the reference; `against` says which."""

    def __init__(self, stats: CheckStats, against: str):
        self.stats = stats
        self.against = against




def _classify(exc: BaseException) -> tuple[str, str, bool]:
    """(status, detail, needs a fresh process) for an exception raised by the solution's code."""
    if isinstance(exc, ForbiddenOpError):
        return "forbidden_op", str(exc), False
    if isinstance(exc, OutputContractError):
        return "incorrect", f"X05: output contract: {exc}", False
    if isinstance(exc, InputMutationError):
        return "incorrect", f"X04: input mutation: {exc}", False
    if isinstance(exc, TamperError):
        return "integrity", f"X11/X15: tampering: {exc}", True
    if isinstance(exc, L2ResidencyError):
        # The settings stay in force, so every later timed shape is refused too: no fresh process needed.
        return "integrity", str(exc), False
    # A CUDA error can leave the context unusable, and memory exhaustion the allocator in an unknown state:
    # the next shape gets a fresh process. Any other exception (an assert, an unsupported k, a compiler
    # error) is raised on the host and leaves the device as it was: Runner.recover puts the process back.
    fresh = _device_error(exc)
    tail = "".join(traceback.format_exception(exc)[-6:])
    # What raised it, when the exception was raised from another (Triton's CompilationError can carry an
    # empty message of its own and the reason, e.g. a shape that is not a power of 2, in its cause).
    causes, cause = [], exc.__cause__
    while cause is not None and len(causes) < 3:
        last_line = (str(cause).strip().splitlines() or [""])[-1]
        causes.append(f"caused by {type(cause).__name__}: {last_line}"[:300])
        cause = cause.__cause__
    caused = "".join(f"\n{line}" for line in causes)
    return "runtime_error", f"{type(exc).__name__}: {exc}{caused}\n{tail}", fresh


DEVICE_ERROR_TYPES = ("AcceleratorError", "OutOfMemoryError", "CudaError", "CUDARuntimeError", "CUDADriverError")
DEVICE_ERROR_TEXT = ("CUDA error", "CUDA driver error", "CUBLAS_STATUS", "CUDNN_STATUS", "cuDNN error",
                     "illegal memory access", "out of memory", "misaligned address", "unspecified launch failure")


def _device_error(exc: BaseException) -> bool:
    """Whether an exception, or one it was raised from, reports a device error (by type or by message: CuPy,
    Triton and extensions wrap CUDA's errors in their own RuntimeErrors)."""
    seen = 0
    while exc is not None and seen < 8:
        if type(exc).__name__ in DEVICE_ERROR_TYPES or any(text in str(exc) for text in DEVICE_ERROR_TEXT):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def scrub_environment(expected_names: list[str] | None) -> None:
    """Remove from os.environ every variable the parent did not set (a profiler someone runs the scorer
    under, say), so that Python code in the worker sees the environment the scorer chose. The C environment
    keeps them (putenv after the deletion): a profiler's libraries read them lazily and fail without them."""
    if expected_names is None:
        return
    keep = set(expected_names)
    for name in [n for n in os.environ if n not in keep]:
        value = os.environ.pop(name)  # unsets it in the C environment too ...
        os.putenv(name, value)  # ... so put it back there, out of os.environ's sight


def receive_order() -> Path:
    """Wait on stdin for the supervisor's order (scoring/standby.py: a worker may be started ahead of need);
    then what was printed before it moves into the system's log, stdin is /dev/null and stdout and stderr
    append to the log, as for every worker."""
    line = sys.stdin.buffer.readline()
    if not line:  # the supervisor ended, or discarded this worker, before giving it a system
        sys.exit(0)
    order = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    log_fd = os.open(order["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    early = Path(order["early_output"])  # what the interpreter and the imports printed before the order
    os.write(log_fd, early.read_bytes())
    early.unlink()
    null_fd = os.open(os.devnull, os.O_RDONLY)
    for target, source in ((0, null_fd), (1, log_fd), (2, log_fd)):
        os.dup2(source, target)
    os.close(log_fd)
    os.close(null_fd)
    return Path(order["task"])


def main(argv: list[str]) -> int:
    task_path = receive_order()
    # Where a worker's start-up goes between its order and its first shape (issue 17): each step's wall
    # seconds, sent with "imported" (the interpreter's start and this module's imports came before the order).
    startup_s: dict[str, float] = {}
    step_start = time.perf_counter()

    def step_done(name: str) -> None:
        nonlocal step_start
        now = time.perf_counter()
        startup_s[name] = now - step_start
        step_start = now

    interpreter_fixes.apply()  # CPU profile only: Triton's interpreter gets bf16 dots wrong without it
    task = json.loads(task_path.read_text())
    task_path.unlink()  # the mixed seed is in it: gone before the solution is imported (X06)
    channel = Channel(int(argv[0]))
    # On for the whole process, before CUDA starts, so every call is recorded alike (scoring/kernel_record.py).
    recorder = KernelRecorder() if task["device"] != "cpu" and task.get("watch", True) else None
    step_done("kernel_recorder")
    # Loaded in every GPU worker alike (its libraries show in the process's map whether or not it profiles).
    counters = CounterReader() if task["device"] != "cpu" and task.get("watch", True) else None
    step_done("counter_reader")
    if task["device"] == "cpu":
        poison_uninitialised_memory_everywhere()
    runner = Runner(task, recorder, counters)
    scrub_environment(task.get("environment_names"))
    step_done("runner")  # the device, the timer (L2 flush buffer, launch gate), the guard
    try:
        import_ms = runner.import_solution()
    except BaseException as exc:  # SystemExit from the solution's import is an import failure too
        status = "forbidden_op" if isinstance(exc, (ForbiddenOpError, StaticAuditError)) else \
            "integrity" if isinstance(exc, TamperError) else "import_error"
        classes = "X11/X15: tampering: " if isinstance(exc, TamperError) else ""  # as for a shape's tampering
        channel.send("import_failed", status=status,
                     detail=f"{classes}{type(exc).__name__}: {exc}\n" + "".join(traceback.format_exception(exc)[-8:]))
        return 0
    version = getattr(runner.solution, "library_version", None)  # reference lines name their library
    step_done("solution_import")
    channel.send("imported", import_ms=import_ms, startup_s=startup_s, timer=runner.timer.describe(),
                 kernel_record=runner.recorder_note,
                 library_version=str(version()) if callable(version) else None)
    for offset, raw in enumerate(task["shapes"]):
        index = task["first_index"] + offset
        shape = Shape(raw["name"], raw["shape_set"], raw["params"])
        channel.send("shape_start", index=index)
        try:
            result = runner.score_shape(shape)
        except Exception as exc:
            status, detail, fresh = _classify(exc)
            del exc  # its traceback holds the failed call's tensors
            if not fresh:
                try:
                    why_not = runner.recover()
                except (ForbiddenOpError, TamperError) as found:  # what the call did before it raised
                    status, detail, fresh = _classify(found)
                else:
                    if why_not:
                        fresh, detail = True, f"{detail}\n(the next shape runs in a fresh process: {why_not})"
            channel.send("shape_result", index=index, result={"name": shape.name, "shape_set": shape.shape_set,
                                                                "params": dict(shape.params), "status": status,
                                                                "detail": detail})
            if fresh:
                return EXIT_FRESH_PROCESS_NEEDED
            continue
        channel.send("shape_result", index=index, result=result)
    channel.send("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
