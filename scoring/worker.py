"""The child process that runs one solution: `python -m scoring.worker TASK.json RESULT_FD`.

The parent (scoring/isolation.py) starts one of these per solution and restarts it after a crash.
Messages go back as JSON lines on RESULT_FD, a pipe the parent made; the solution's stdout and stderr
go to a log file, so nothing it prints can pass for a result. Everything the grader relies on (the
problem's input generator and reference, the timer, the checker) is loaded and captured before the
solution is imported.

Per shape: for each check seed, fresh weights (-> prepare, timed apart) and fresh inputs, the call under
the forbidden-operator mode with uninitialised memory poisoned, the output contract, input mutation and
the numeric check. Then, for scored shapes, warm-up and timed calls, each on freshly generated inputs
after an L2 flush (and a check that the solution asked for no persisting L2, X12), a random sample of
them checked against the reference as well.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sys
import time
import traceback
from pathlib import Path

import torch

from scoring import interpreter_fixes
from scoring.checking import CheckStats, OutputContractError, check_output_contract, compare, worst
from scoring.guard import ForbiddenOpError, ForbiddenOpMode, TamperSnapshot
from scoring.import_audit import audit_files, loaded_files_under
from scoring.problem import Problem, import_file, load_problem
from scoring.seeds import derive_seed
from scoring.spec import Shape
from scoring.timing import CallTiming, CpuTimer, GpuTimer, TimingPolicy, TimingStats, repeat_until_stable

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


@contextlib.contextmanager
def _poisoned_allocations():
    """Uninitialised tensors (torch.empty*) come back filled with NaN / max-int, so unwritten outputs show."""
    import torch.utils.deterministic as deterministic

    previous_fill = deterministic.fill_uninitialized_memory
    previous_mode = torch.are_deterministic_algorithms_enabled()
    previous_warn = torch.is_deterministic_algorithms_warn_only_enabled()
    deterministic.fill_uninitialized_memory = True
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(previous_mode, warn_only=previous_warn)
        deterministic.fill_uninitialized_memory = previous_fill


class Runner:
    """Scores the task's shapes for one solution inside this process (see the module docstring)."""

    def __init__(self, task: dict):
        self.task = task
        self.device = torch.device(task["device"])
        self.problem: Problem = load_problem(task["problem_dir"])
        self.tolerance = self.problem.spec.tolerance
        self.forbidden = tuple(self.problem.spec.forbidden_ops) if task["enforce_forbidden"] else ()
        self.policy = TimingPolicy(**task["timing"])
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
        self.solution = None

    # -- solution entry points -------------------------------------------------------------------------
    def import_solution(self) -> float:
        start = time.perf_counter()
        with ForbiddenOpMode(self.forbidden):
            self.solution = import_file(Path(self.task["solution_path"]), "ceiling_solution", folder_importable=True)
        if not callable(getattr(self.solution, "run", None)):
            raise AttributeError(f"{self.task['solution_path']} defines no run(state, **inputs) function")
        self._check_tamper()
        self._audit_source()
        return (time.perf_counter() - start) * 1e3

    def _audit_source(self) -> None:
        if not self.task["enforce_forbidden"]:
            return
        folder = Path(self.task["solution_path"]).parent
        findings = audit_files(loaded_files_under(folder, sys.modules), self.problem.spec.forbidden_imports,
                               self.forbidden, root=folder)
        if findings:
            raise StaticAuditError("X21: " + "; ".join(str(f) for f in findings[:5]))

    def _check_tamper(self) -> None:
        changes = self.snapshot.changes()
        if changes:
            self.snapshot.restore_flags()
            raise TamperError("; ".join(changes))

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def prepare(self, weights: dict):
        """One-time preparation (weight repacking): timed and reported, never scored."""
        prepare = getattr(self.solution, "prepare", None)
        start = time.perf_counter()
        with ForbiddenOpMode(self.forbidden):
            state = prepare(**_clone_all(weights)) if prepare else _clone_all(weights)
        self._sync()
        self._check_tamper()
        return state, (time.perf_counter() - start) * 1e3

    def call_guarded(self, state, inputs: dict):
        """A checked call, inside the forbidden-operator mode."""
        with ForbiddenOpMode(self.forbidden):
            return self.solution.run(state, **inputs)

    def call_plain(self, state, inputs: dict):
        """A timed call. A Python dispatch mode costs 70-260 us of host time per call (measured on an H100,
        scripts/diag_launch_overhead.py), which would swamp decode-sized kernels, so timed calls run
        without it; the profiler's kernel-name audit covers them instead."""
        return self.solution.run(state, **inputs)

    # -- checks -----------------------------------------------------------------------------------------
    def check(self, shape: Shape, out, weights: dict, inputs_given: dict, inputs_pristine: dict) -> CheckStats:
        dims, dtype = self.problem.module.output_spec(dict(shape.params))
        check_output_contract(out, tuple(dims), dtype, self.device)
        _assert_unchanged(inputs_given, inputs_pristine, "input")
        self._check_tamper()
        ref = self.problem.module.reference(weights, inputs_pristine)
        custom = self.problem.custom_check
        if custom is not None:
            return custom(out, ref, weights, inputs_pristine, self.tolerance)
        return compare(out, ref, self.tolerance)

    def _generator(self, *labels) -> torch.Generator:
        gen = torch.Generator(device=self.device)
        gen.manual_seed(derive_seed(self.task["seed"], *labels) % 2**63)
        return gen

    def correctness(self, shape: Shape) -> tuple[list[CheckStats], dict, float]:
        """Check every seed on fresh weights and inputs; return the stats, the last state and prepare time."""
        params = dict(shape.params)
        stats, prepare_ms = [], []
        state = weights = None
        for seed_index in range(self.task["check_seeds"]):
            gen = self._generator(shape.name, "check", seed_index)
            weights = self.problem.module.make_weights(params, gen, self.device)
            state, ms = self.prepare(weights)
            prepare_ms.append(ms)
            inputs = self.problem.module.make_inputs(params, weights, gen, self.device)
            given = _clone_all(inputs)
            with _poisoned_allocations():
                out = self.call_guarded(state, given)
                self._sync()
            stats.append(self.check(shape, out, weights, given, inputs))
            del out
            if not stats[-1].passed:
                break
        return stats, {"state": state, "weights": weights}, max(prepare_ms)

    def timed(self, shape: Shape, prepared: dict) -> tuple[TimingStats, int, list[CheckStats]]:
        """Warm up, then time calls on fresh inputs until stable; returns stats, warm-up count, checks."""
        params = dict(shape.params)
        state, weights = prepared["state"], prepared["weights"]
        gen = self._generator(shape.name, "timed")
        checks: list[CheckStats] = []

        last_given: dict = {}

        def one_call(check_this: bool, same_storage: bool = False) -> CallTiming:
            inputs = self.problem.module.make_inputs(params, weights, gen, self.device)
            given = _refill(last_given, inputs) if same_storage else _clone_all(inputs)
            last_given.clear()
            last_given.update(given)
            residency = self.timer.residency_detail()  # before the reset, which leaves these settings in force
            if residency:
                raise L2ResidencyError(residency)
            self.timer.before_call()
            out, timing = self.timer.time_call(lambda: self.call_plain(state, given))
            if check_this:
                result = self.check(shape, out, weights, given, inputs)
                checks.append(result)
                if not result.passed:
                    raise _TimedCheckFailed(result)
            return timing

        warm_start = time.perf_counter()
        warm = 0
        while warm < self.policy.warmup_calls or time.perf_counter() - warm_start < self.policy.warmup_s:
            one_call(check_this=False)
            warm += 1
        stats = repeat_until_stable(lambda: one_call(self.sample_rng.random() < self.task["timed_check_rate"]),
                                    self.policy)
        # The last timed call is always checked too (the sample may have been empty), and it gets the
        # previous call's input tensors refilled with new values: a cache keyed on the tensor's identity,
        # address or shape (X02) answers it with a stale output whatever the allocator recycles.
        one_call(check_this=True, same_storage=True)
        return stats, warm, checks

    # -- one shape --------------------------------------------------------------------------------------
    def score_shape(self, shape: Shape) -> dict:
        result: dict = {"name": shape.name, "shape_set": shape.shape_set, "params": dict(shape.params)}
        started = time.perf_counter()
        stats, prepared, prepare_ms = self.correctness(shape)
        result["prepare_ms"] = prepare_ms
        summary = worst(stats)
        result["check"] = {**summary.as_dict(), "seeds_checked": len(stats)}
        if not summary.passed:
            # Zeros, constants, copied inputs (X01) and named-but-skipped algorithms (X24) fail here; on a
            # held-out or property shape, so does a kernel specialised to the visible shapes (X23).
            classes = "X01/X24" if shape.shape_set == "visible" else "X23/X01/X24"
            result.update(status="incorrect", detail=f"{classes}: {summary.detail}")
            return result
        if shape.shape_set in self.task["timed_sets"]:
            try:
                timing, warmup_calls, checks = self.timed(shape, prepared)
            except _TimedCheckFailed as failed:
                result.update(status="incorrect", detail=f"X02/X03/X13: a timed call's output was wrong: {failed.stats.detail}",
                              check={**failed.stats.as_dict(), "seeds_checked": len(stats)})
                return result
            result.update(timing=timing.as_dict(), warmup_calls=warmup_calls)
            result["check"]["timed_calls_checked"] = len(checks)
            result["check"]["timed_worst_normwise_err"] = max((c.normwise_err for c in checks), default=None)
            outlived = timing.outlived_detail(self.timer.idle_tail_ms)
            if outlived:
                result.update(status="integrity", detail=outlived)
                return result
        result["status"] = "passed"
        result["wall_s"] = time.perf_counter() - started
        return result


class _TimedCheckFailed(Exception):
    def __init__(self, stats: CheckStats):
        self.stats = stats


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
    tail = "".join(traceback.format_exception(exc)[-6:])
    # A CUDA error leaves the context unusable: every later shape needs a fresh process.
    return "runtime_error", f"{type(exc).__name__}: {exc}\n{tail}", True


def main(argv: list[str]) -> int:
    interpreter_fixes.apply()  # CPU profile only: Triton's interpreter gets bf16 dots wrong without it
    task_path = Path(argv[0])
    task = json.loads(task_path.read_text())
    task_path.unlink()  # the mixed seed is in it: gone before the solution is imported (X06)
    channel = Channel(int(argv[1]))
    runner = Runner(task)
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
    channel.send("imported", import_ms=import_ms, timer=runner.timer.describe(),
                 library_version=str(version()) if callable(version) else None)
    for offset, raw in enumerate(task["shapes"]):
        index = task["first_index"] + offset
        shape = Shape(raw["name"], raw["shape_set"], raw["params"])
        channel.send("shape_start", index=index)
        try:
            result = runner.score_shape(shape)
        except Exception as exc:
            status, detail, fresh = _classify(exc)
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
