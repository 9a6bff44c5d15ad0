"""The worker's call server: import the solution, then prepare and call it on the judge's orders.

Everything here runs in the process the solution runs in, so nothing here decides anything: the judge
(scoring/judge/) made the inputs, keeps their pristine copies, reads the output itself and holds its own
clock. What the worker reports (its CUDA-event times, the kernels CUPTI saw, the counters of an audited
call, a refused operator, a replaced callable) is evidence the judge weighs, and what Python code in this
process can rewrite is bounded by the judge's own observations (docs/integrity.md).

One call, the same for every kind of call (checked, warm-up, timed, audited): map the judge's input
buffers, refuse persisting-L2 settings (X12), then on the GPU wait on the judge's GO event (its gate: the
judge refills the inputs and flushes the L2 only once this call is queued), time the solution with CUDA
events, record the DONE event, describe the output to the judge ("queued"), wait for the judge's "taken" (its
copy of the output is made), free the output and poison the free blocks of its size for the next call, and
report the times ("done"). Whether a call is also compared with the reference is decided by the judge after the
call; only an audited call is announced, because the profiler must be on for it.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import torch

from scoring import interpreter_fixes, vendor_kernels
from scoring.counters import CounterReader
from scoring.guard import ForbiddenOpError, ForbiddenOps, TamperSnapshot
from scoring.import_audit import loaded_files_under
from scoring.kernel_record import CallWindow, KernelRecorder, ShapeKernelSummary
from scoring.problem import import_file, load_problem
from scoring.sandbox import lockdown_report
from scoring.shared_tensors import describe_output, map_inputs
from scoring.wire import Reader, send
from scoring.worker.failures import TamperError, status_of_exception
from scoring.worker.timer import WorkerTimer

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
POISON_BLOCKS = 2  # the solution's first allocations of the output's size: its output and a same-size buffer


def _clone_all(tensors: dict) -> dict:
    return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in tensors.items()}


def poison_uninitialised_memory_everywhere() -> None:
    """CPU profile: every torch.empty* of the whole worker comes back NaN / max-int, so unwritten outputs
    show. Set once, before the solution is imported, for every call alike."""
    from torch.utils import deterministic

    torch.use_deterministic_algorithms(True, warn_only=True)
    deterministic.fill_uninitialized_memory = True


class CallServer:
    """The solution and what watches it in this process (see the module docstring)."""

    def __init__(
        self,
        task: dict,
        reply_fd: int,
        recorder: KernelRecorder | None,
        counters: CounterReader | None,
        orders: Reader | None = None,
    ):
        self.task = task
        self.reply_fd = reply_fd
        self.orders = orders  # the judge's channel, read here only for "taken" (the end of a call)
        self.device = torch.device(task["device"])
        self.problem = load_problem(task["problem_dir"])
        enforce = task["enforce_forbidden"]
        self.guard = ForbiddenOps(self.problem.spec.forbidden_ops if enforce else ())
        self.recorder = recorder if recorder is not None and recorder.available else None
        self.recorder_note = (
            recorder.describe()
            if recorder is not None
            else {
                "tool": None,
                "outcome": "not verified (CPU profile: no kernels to record)"
                if self.device.type == "cpu"
                else "not verified (watch=false)",
            }
        )
        self.counters = counters
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
        self.timer = WorkerTimer(self.device, task.get("go_event"))
        # The reference lines and the judge compute in full precision; these are this process's defaults.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self.snapshot = TamperSnapshot()
        self.solution = None
        self.import_launch_names: set[str] = set()
        self.state = None
        self.view: dict = {}  # key -> the tensor the solution is given (views of the judge's shared buffers)
        self.buffers: dict = {}  # key -> a shared buffer, mapped once per shape
        self.output_spec: tuple | None = None
        self.mailbox: dict | None = None
        self.windows: dict[int, CallWindow] = {}  # this shape's calls, by the judge's call number
        self.held_output = None  # the last output, alive until the judge has read it

    # -- import and prepare -------------------------------------------------------------------------
    def import_solution(self) -> float:
        start = time.perf_counter()
        # Bytecode from here on is looked up (and written) under an empty folder of this run's scratch, never
        # in a __pycache__ the solution ships: the code that runs is the source the judge audits (red team
        # round 3 ran an unchecked-hash .pyc planted beside an innocent source).
        sys.pycache_prefix = tempfile.mkdtemp(prefix="pycache-")
        self.guard.install()  # for the rest of the process: import, prepare and every call
        with self._solution_code():
            self.solution = import_file(Path(self.task["solution_path"]), "ceiling_solution", folder_importable=True)
        self.import_launch_names = self.recorder.take_launch_names() if self.recorder else set()
        if not callable(getattr(self.solution, "run", None)):
            raise AttributeError(f"{self.task['solution_path']} defines no run(state, **inputs) function")
        self._check_attempts()
        self._check_tamper()
        return (time.perf_counter() - start) * 1e3

    def loaded_files(self) -> list[str]:
        """The solution folder's source files this process has loaded, a claim: the judge audits the regular
        files of the folder among them, besides the solution's file and what it imports, whatever this says."""
        return [str(path) for path in loaded_files_under(Path(self.task["solution_path"]).parent, sys.modules)]

    def _check_tamper(self) -> None:
        changes = self.snapshot.changes()
        if changes:
            self.snapshot.restore_flags()
            raise TamperError("; ".join(changes))

    def _check_attempts(self) -> None:
        attempts = self.guard.take_attempts()
        if attempts:
            raise ForbiddenOpError(attempts[0])

    def _solution_code(self):
        return self.recorder.listening() if self.recorder else contextlib.nullcontext()

    def prepare(self, message: dict) -> dict:
        weights = map_inputs(message["weights"], {})  # the solution gets clones: the judge frees these
        prepare = getattr(self.solution, "prepare", None)
        self.state = None
        gc.collect()
        start = time.perf_counter()
        with self._solution_code():
            self.state = prepare(**_clone_all(weights)) if prepare else _clone_all(weights)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        self._check_attempts()
        self._check_tamper()
        names = self.recorder.take_launch_names() if self.recorder else set()
        prepare_ms = (time.perf_counter() - start) * 1e3
        self._poison_free_blocks()  # for the first call on this state
        return {"prepare_ms": prepare_ms, "launch_names": sorted(names)}

    def shape_start(self, message: dict) -> None:
        self.output_spec = (tuple(message["dims"]), message["dtype"])
        self.mailbox = message.get("mailbox")
        self.windows = {}
        self.view, self.buffers, self.held_output = {}, {}, None
        if self.device.type == "cuda":
            torch.cuda.empty_cache()  # the last shape's blocks back to the GPU: the judge allocates there too

    # -- one call -------------------------------------------------------------------------------------
    def _poison_free_blocks(self) -> None:
        """Blocks of the output's size filled with 0xFF (NaN in every float format) and freed, so that the
        caching allocator hands them to the solution's next allocations of that size: an output it leaves
        partly unwritten shows NaN. Between calls alike (after prepare; after each call, once the judge has its
        copy of the output), and finished before this process answers: the judge holds its gate for the next call
        only then. Queued at the start of a call instead, the fill waited behind the judge's gate and ran inside
        the judge's span, outside the worker's events: 64 MB added ~22 us to the span in
        scripts/lab_judge_switch.py (H100, 2026-11-27 16:17), and softmax's large outputs made up the judge
        clock's high mode (results/judge/README.md)."""
        if self.device.type != "cuda" or self.output_spec is None:
            return
        dims, dtype_name = self.output_spec
        itemsize = torch.empty((), dtype=getattr(torch, dtype_name.split(".")[-1])).element_size()
        blocks = [
            torch.empty(math.prod(dims) * itemsize, dtype=torch.uint8, device=self.device).fill_(0xFF)
            for _ in range(POISON_BLOCKS)
        ]
        del blocks
        torch.cuda.synchronize(self.device)

    def call(self, message: dict) -> None:
        """Run one call and send "queued" (the output's descriptor) and "done" (the worker's times), or
        "failed" when the solution raised."""
        self.held_output = None
        self.view = map_inputs(message["inputs"], self.buffers)
        number = message["number"]
        residency = self.timer.residency_detail()  # the reset after each call leaves these settings in force
        if residency:
            raise _Refused("integrity", residency)
        record_kernels = self.recorder is not None and bool(message.get("record_kernels"))
        if self.recorder:
            self.recorder.kernel_activity(record_kernels)
        pad_start = self.recorder.now_ns() if self.recorder else 0
        profiled: list = []
        if message.get("audited") and self.counters is not None:

            def run(state, **inputs):
                out, ranges = self.counters.profile(lambda: self.solution.run(state, **inputs))
                profiled.append(ranges)
                return out
        else:
            run = self.solution.run
        collecting = gc.isenabled()
        gc.disable()  # a collection inside the window would stall the launch; off for every call alike
        try:
            with self._solution_code():
                out, timing = self.timer.time_call(lambda: run(self.state, **self.view), self._queued)
        finally:
            if collecting:
                gc.enable()
        window = (
            CallWindow(
                pad_start,
                pad_start,
                self.recorder.now_ns(),
                launch_names=frozenset(self.recorder.take_launch_names()),
                kernels_recorded=record_kernels,
            )
            if self.recorder
            else None
        )
        if window is not None:
            self.windows[number] = window
        self.held_output = out
        self._check_attempts()
        self._check_tamper()
        done = {"timing": timing._asdict()}
        if message.get("audited"):
            done["audit_profile"] = {
                "ranges": profiled[0] if profiled else [],
                "why_not": self.counters.why_not
                if self.counters is not None
                else "no counter reader in this worker (watch=false or CPU profile)",
                "launch_names": sorted(window.launch_names) if window else None,
            }
        self._after_the_judges_copy()
        send(self.reply_fd, "done", **done)

    def _after_the_judges_copy(self) -> None:
        """Wait for the judge's "taken" (it has its copy of the output), then free the output and poison blocks
        of its size for the next call."""
        if self.orders is None:
            return
        order = self.orders.get(None)
        if order["event"] == "exit":  # the judge is closing (it gave up on this call): nothing to answer
            raise SystemExit(0)
        if order["event"] != "taken":
            raise RuntimeError(f"the judge sent {order['event']!r} where it says it has the output ('taken')")
        self.held_output = None
        self._poison_free_blocks()

    def _queued(self, out) -> None:
        """Called by the timer once the call's work is queued (after DONE on the GPU): the judge starts
        reading the output when this call's DONE completes."""
        send(self.reply_fd, "queued", output=describe_output(out, self.mailbox))

    def shape_end(self, message: dict) -> dict:
        """The shape's kernel record: every call's window, the timed ones marked with their event times."""
        timed = {int(k): v for k, v in (message.get("timed") or {}).items()}
        record = ShapeKernelSummary()
        if not self.recorder:
            return {
                "kernel_record": dict(self.recorder_note),
                "kernel_names": [],
                "outlived": None,
                "timed_launch_names": None,
            }
        record.launch_names |= self.import_launch_names | set(message.get("prepare_launch_names") or ())
        timed_names: set[str] = set()
        for number, window in sorted(self.windows.items()):
            if number in timed:
                timed_names |= window.launch_names
                window = CallWindow(
                    window.pad_start_ns,
                    window.start_ns,
                    window.end_ns,
                    True,
                    timed[number],
                    window.launch_names,
                    window.kernels_recorded,
                )
            record.note(window)
        record.resolve(self.recorder)
        self.windows = {}
        return {
            "kernel_record": record.as_dict(),
            "kernel_names": sorted(record.raw_names()),  # judged by the judge (vendor libraries, X21)
            "outlived": record.outside_timed_interval(list(timed.values())),
            "timed_launch_names": sorted(timed_names),
        }

    def recover(self) -> str | None:
        """After the solution raised: leave this process as the next shape expects it, or say why not.
        Raises ForbiddenOpError or TamperError when the failed call had done either before it raised."""
        self.held_output = None
        gc.collect()
        try:
            if self.device.type == "cuda":
                torch.cuda.synchronize(self.device)
                if torch.cuda.is_current_stream_capturing():
                    return "the solution left a CUDA stream capture open"
        except Exception as exc:  # noqa: BLE001 -- any failure here: a fresh process
            return f"the device did not synchronise after the error ({type(exc).__name__})"
        launched: set[str] = set()
        if self.recorder:
            self.recorder.kernel_activity(False)
            launched = self.recorder.take_launch_names()
            self.recorder.collect([])
        self.windows = {}
        self._check_tamper()
        self._check_attempts()
        vendor = (
            vendor_kernels.judge(launched, "launched by the solution") if self.task["enforce_forbidden"] else "passed"
        )
        if vendor != "passed":
            raise ForbiddenOpError(vendor[len("failed (") : -1])
        return None


class _Refused(Exception):
    """A call refused before the solution ran (X12 settings left in force)."""

    def __init__(self, status: str, detail: str):
        super().__init__(detail)
        self.status = status


def scrub_environment(expected_names: list[str] | None) -> None:
    """Remove from os.environ every variable the judge did not set, so that Python code in the worker sees
    the environment the scorer chose. The C environment keeps them (putenv after the deletion): a
    profiler's libraries read them lazily and fail without them."""
    if expected_names is None:
        return
    keep = set(expected_names)
    for name in [n for n in os.environ if n not in keep]:
        value = os.environ.pop(name)
        os.putenv(name, value)


def _failure(server: CallServer | None, exc: BaseException) -> dict:
    """The "failed" message for an exception raised by the solution's code, after recovery."""
    if isinstance(exc, _Refused):
        return {"status": exc.status, "detail": str(exc), "fresh": False}
    status, detail, fresh = status_of_exception(exc)
    if not fresh and server is not None:
        try:
            why_not = server.recover()
        except (ForbiddenOpError, TamperError) as found:
            status, detail, fresh = status_of_exception(found)
        else:
            if why_not:
                fresh, detail = True, f"{detail}\n(the next shape runs in a fresh process: {why_not})"
    return {"status": status, "detail": detail, "fresh": fresh}


def main(argv: list[str]) -> int:
    cmd_fd, reply_fd = int(argv[0]), int(argv[1])
    reader = Reader(cmd_fd)
    first = reader.get(None)  # the judge starts a worker ahead of its task
    if first["event"] != "task":
        return 0
    task = first["task"]
    interpreter_fixes.apply()  # CPU profile only: Triton's interpreter gets bf16 dots wrong without it
    watch = task["device"] != "cpu" and task.get("watch", True)
    startup_s, step_start = {}, time.perf_counter()
    recorder = KernelRecorder() if watch else None  # on for the whole process, before CUDA starts
    startup_s["kernel_recorder"], step_start = time.perf_counter() - step_start, time.perf_counter()
    counters = CounterReader() if watch else None
    startup_s["counter_reader"], step_start = time.perf_counter() - step_start, time.perf_counter()
    if task["device"] == "cpu":
        poison_uninitialised_memory_everywhere()
    server = CallServer(task, reply_fd, recorder, counters, orders=reader)
    startup_s["call_server"] = time.perf_counter() - step_start
    send(
        reply_fd,
        "ready",
        done_event=server.timer.done_handle(),
        timer=server.timer.describe(),
        kernel_record=server.recorder_note,
        sandbox=lockdown_report(REPO_ROOT),
        startup_s=startup_s,
    )
    # Calls of a trusted null workload before the solution exists: the judge's clock calibration.
    while True:
        message = reader.get(None)
        if message["event"] != "calibrate":
            break
        timing = server.timer.calibration_call(
            message["sleep_cycles"], server._queued, float(message.get("poll_go_after_s", 0.0))
        )
        send(reply_fd, "done", timing=timing._asdict())
    if message["event"] != "import":
        return 0
    scrub_environment(task.get("environment_names"))
    try:
        import_ms = server.import_solution()
    except BaseException as exc:  # SystemExit from the solution's import is an import failure too
        status = (
            "forbidden_op"
            if isinstance(exc, ForbiddenOpError)
            else "integrity"
            if isinstance(exc, TamperError)
            else "import_error"
        )
        classes = "X11/X15: tampering: " if isinstance(exc, TamperError) else ""
        send(
            reply_fd,
            "import_failed",
            status=status,
            detail=f"{classes}{type(exc).__name__}: {exc}\n" + "".join(traceback.format_exception(exc)[-8:]),
        )
        return 0
    version = getattr(server.solution, "library_version", None)
    send(
        reply_fd,
        "imported",
        import_ms=import_ms,
        loaded_files=server.loaded_files(),
        library_version=str(version()) if callable(version) else None,
    )
    handlers = {"prepare": server.prepare, "shape_start": server.shape_start, "shape_end": server.shape_end}
    while True:
        message = reader.get(None)
        event = message["event"]
        if event == "exit":
            return 0
        if event == "taken":  # for a call that failed after the judge had its copy: nothing to free
            continue
        try:
            if event == "call":
                server.call(message)
                continue
            reply = handlers[event](message)
        except Exception as exc:  # noqa: BLE001 -- the solution's failure, classified for the judge
            failure = _failure(server, exc)
            del exc
            send(reply_fd, "failed", **failure)
            if failure["fresh"]:
                return 3
            continue
        send(reply_fd, f"{event}_done", **(reply or {}))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
