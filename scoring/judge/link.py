"""The judge's end of its worker: start it in its sandbox, and carry every order and answer with a deadline.

One worker per judge process, started as soon as the judge starts (its interpreter and imports overlap
the judge's), told its task once the judge has its order, calibrated (GPU: trusted null calls that measure
what the judge's clock adds, and check that the worker's DONE event orders the judge's stream), then told
to import the solution. A worker that dies, goes silent past the deadline, floods or breaks the channel is
a `WorkerLost` with the reason (X32), and is killed with everything it started: its namespace's init dies
with it (`unshare --kill-child`; outside a sandbox, its own process group).
"""

from __future__ import annotations

import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from scoring import sandbox
from scoring.shared_tensors import (
    DescriptorError,
    InputSlots,
    OutputMailbox,
    OutputOpener,
    check_descriptor,
)
from scoring.judge.messages import (
    CALL_FAILURE_STATUSES,
    IMPORT_FAILURE_STATUSES,
    MAX_DETAIL_CHARS,
    malformed_fields,
    worker_timing,
)
from scoring.wire import PIPE_CLOSED, Reader, WireError, send

if TYPE_CHECKING:  # clock.py needs Triton, imported only where a GPU runs
    from scoring.judge.clock import ClockReading

CALIBRATION_CALLS = 24
CALIBRATION_SLEEP_CYCLES = (0, 100_000)  # a null call and one of ~55 us at 1.8 GHz
# The regime of a call whose gate timed out (the worker queues it once GO has completed on the gate's timeout):
# its span is charged less the gap calibrated here (scoring/judge/cross_check.py). A call of ~1.1 ms at 1.8 GHz, longer
# than the judge's host reaction to "queued", so that the judge's wait on DONE is queued while it runs: the
# smallest gap this regime leaves, which is the one a forger picks (red team round 7).
CALIBRATION_TIMED_OUT_CALLS = 12
CALIBRATION_TIMED_OUT_SLEEP_CYCLES = 2_000_000
# The worker sleeps to this short of the gate's timeout, then polls GO (scoring/worker/timer.py calibration_call).
POLL_GO_BEFORE_THE_TIMEOUT_S = 0.3e-3


def _die_with_the_judge() -> None:
    """In the worker's (or unshare's) process, before exec: SIGKILL when the judge dies, however it dies."""
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class SolutionFailed(Exception):
    """The solution's code raised (or was refused) in the worker: the worker's classification."""

    def __init__(self, status: str, detail: str, fresh: bool):
        super().__init__(detail)
        self.status, self.detail, self.fresh = status, detail, fresh


class WorkerLost(Exception):
    """The worker died, went silent, or broke the channel (X14/X32): the shape cannot go on in it."""

    def __init__(self, status: str, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass
class CallReport:
    """One call as the judge saw it."""

    out: torch.Tensor | None  # the judge's own copy of the output, taken on its stream right after DONE
    contract_error: str | None
    inputs_unchanged: bool
    worker_timing: dict  # the worker's CallTiming fields (its claim)
    host_ms: float  # the judge's wall time from the order to the worker's "done"
    audit_profile: dict | None = None
    clock: ClockReading | None = None  # the judge's clock on the call (GPU; None in the CPU profile)
    kernels_recorded: bool = False  # whether the judge had CUPTI's kernel activity on for this call


@dataclass
class Calibration:
    """What the judge's clock adds to a trusted call's event time (span minus events), per call length."""

    gaps_us: dict = field(default_factory=dict)  # sleep cycles -> [gap per call]
    ordered: bool = True  # every calibration span contained its call
    detail: str = ""
    tails_ms: list = field(default_factory=list)  # the worker's device-wide synchronise wait, nothing outliving
    back_us: list = field(default_factory=list)  # from DONE seen to the judge's stream running again
    gpu_gaps_us: list = field(default_factory=list)  # the judge's GPU span minus the worker's events
    # The same gap on trusted calls queued once the gate had timed out (CALIBRATION_TIMED_OUT_*), and how many
    # of those calls the judge saw held after all (a worker that never saw GO complete: not counted).
    timed_out_gpu_gaps_us: list = field(default_factory=list)
    timed_out_calls_held: int = 0

    def idle_tail_ms(self) -> float:
        return statistics.quantiles(self.tails_ms, n=10)[-1] if len(self.tails_ms) >= 2 else 0.0

    def gpu_gap_us(self) -> float | None:
        """The calibrated GPU gap: the median over the trusted calls (None without a GPU clock)."""
        return statistics.median(self.gpu_gaps_us) if self.gpu_gaps_us else None

    def timed_out_gap_us(self) -> float | None:
        """What the judge subtracts from the span of a call whose gate timed out: the smaller of the gap
        calibrated in that regime and the held one. A worker can put a timed-out call in either regime (queue
        it after GO completed, or queue it held and say "queued" late), so the judge takes the one that leaves
        the least; a synchronising solution is charged at most the difference, switches it caused."""
        held = self.gpu_gap_us()
        if held is None or not self.timed_out_gpu_gaps_us:
            return held
        return min(held, statistics.median(self.timed_out_gpu_gaps_us))

    def null_gap_us(self) -> float | None:
        gaps = [g for values in self.gaps_us.values() for g in values]
        return statistics.median(gaps) if gaps else None

    def as_dict(self) -> dict:
        summary = {
            str(k): {
                "median_us": round(statistics.median(v), 2),
                "min_us": round(min(v), 2),
                "max_us": round(max(v), 2),
            }
            for k, v in self.gaps_us.items()
            if v
        }
        return {
            "gap_us_by_sleep_cycles": summary,
            "done_orders_the_judge": self.ordered,
            "detail": self.detail,
            "back_to_the_judge_us_median": round(statistics.median(self.back_us), 2) if self.back_us else None,
            "gpu_gap_us_median": round(self.gpu_gap_us(), 2) if self.gpu_gaps_us else None,
            "timed_out_gpu_gap_us_median": round(statistics.median(self.timed_out_gpu_gaps_us), 2)
            if self.timed_out_gpu_gaps_us
            else None,
            "timed_out_calls": len(self.timed_out_gpu_gaps_us),
            "timed_out_calls_held": self.timed_out_calls_held,
            "timed_out_gap_us": round(self.timed_out_gap_us(), 2) if self.gpu_gaps_us else None,
        }


def _describe_exit(code: int | None) -> str:
    """A process's return code in words (subprocess's convention: negative for a signal)."""
    if code is None:
        return "still running"
    if code >= 0:
        return f"exit code {code}"
    return f"killed by {signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else -code}"


class WorkerLink:
    def __init__(self, device: torch.device, env: dict, repo_root: Path):
        self.device = device
        self.scratch = Path(tempfile.mkdtemp(prefix=sandbox.scratch_prefix(os.getpid())))
        os.chmod(self.scratch, 0o777)
        self.sandbox_why_not = sandbox.why_not_available()
        self.env = env
        self.repo_root = repo_root
        self.proc: subprocess.Popen | None = None
        self.clock = None
        self.slots = InputSlots(device, self.scratch)
        self.opener = OutputOpener(device)
        self.mailbox: OutputMailbox | None = None
        self.deadline_s = 600.0

    # -- the process ----------------------------------------------------------------------------------
    def _spawn(self, solution_path: Path) -> None:
        """Start the worker: in its sandbox where this machine can make one, else in its own process group
        (the result says which: `sandbox` in the system's entry)."""
        cmd_r, self._cmd_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        args = [str(cmd_r), str(reply_w)]
        env = dict(self.env, TMPDIR=str(self.scratch), PYTHONNOUSERSITE="1")
        self._cache = None
        if self.sandbox_why_not is None:
            cache = self._cache = sandbox.cache_folder(solution_path)
            os.chmod(cache, 0o777)
            env.update(
                HOME=str(cache),
                TRITON_CACHE_DIR=str(cache / "triton"),
                CUPY_CACHE_DIR=str(cache / "cupy"),
                TORCHINDUCTOR_CACHE_DIR=str(cache / "inductor"),
            )
            command = sandbox.worker_command(args, self.scratch, cache)
        else:
            command = [*sandbox.worker_interpreter(), *args]
        # Outside a sandbox the worker leads its own process group, killed whole; inside, unshare's child
        # (the namespace's init) dies with unshare, and every process of the namespace with it.
        self.worker_environment_names = sorted(env)  # what the worker keeps in os.environ (scrub_environment)
        self.proc = subprocess.Popen(
            command,
            pass_fds=(cmd_r, reply_w),
            env=env,
            cwd=self.repo_root,
            # A session of its own, sandboxed or not: kill(0, sig) in the worker
            # reaches its own group, never the judge (red team round 2).
            start_new_session=True,
            preexec_fn=_die_with_the_judge,
        )
        os.close(cmd_r)
        os.close(reply_w)
        self.reader = Reader(self._reply_r)

    def start(self, task: dict, solution_path: Path, l2_bytes: int) -> dict:
        """Start the worker and give it its task; returns its "ready" message (GPU: its DONE event's handle)."""
        self._spawn(solution_path)
        task = dict(task, environment_names=self.worker_environment_names)
        if self.device.type == "cuda":
            from scoring.judge.clock import JudgeClock

            self.clock = JudgeClock(self.device, l2_bytes)
            task = dict(task, go_event=self.clock.go_handle())
        self.order("task", task=task)
        ready = self.expect("ready", timeout_s=300)
        if self.clock is not None:
            self.clock.adopt_done(ready["done_event"])
        return ready

    def kernel_record_note(self) -> dict | None:
        """The judge's own word where no kernel record can exist (the CPU profile); None where the worker's
        record is the evidence."""
        if self.device.type == "cpu":
            return {"tool": None, "outcome": "not verified (CPU profile: no kernels to record)"}
        return None

    def worker_cache_folders(self) -> tuple[Path, ...]:
        """The folders, beside its scratch, that the worker can write (its compile cache)."""
        return (self._cache,) if getattr(self, "_cache", None) is not None else ()

    def calibrate(self) -> Calibration:
        """Trusted calls before the solution exists (GPU): the gap the judge's clock adds, and whether the
        worker's DONE really orders the judge's stream (it did not, measured, across network namespaces)."""
        calibration = Calibration()
        if self.clock is None:
            calibration.detail = "CPU profile: no judge clock"
            return calibration
        from scoring.judge.clock import GATE_TIMEOUT_US, WorkerEnded

        def trusted_call(cycles: int, poll_go_after_s: float = 0.0) -> tuple[ClockReading, dict]:
            self.clock.hold(lambda: None)
            self.order("calibrate", sleep_cycles=cycles, poll_go_after_s=poll_go_after_s)
            self.expect("queued")
            self.clock.follow_done(None)
            self.clock.release()
            try:
                reading = self.clock.watch(self._call_going)
            except WorkerEnded:  # before the solution exists: the worker's own failure, said as one
                raise self._call_stopped() from None
            return reading, self.expect("done")

        for cycles in CALIBRATION_SLEEP_CYCLES:
            gaps = calibration.gaps_us.setdefault(cycles, [])
            for i in range(CALIBRATION_CALLS):
                reading, done = trusted_call(cycles)
                event_ms = done["timing"]["device_ms"]
                if i >= 4:  # the first calls warm the clocks (and, measured, may run before GO: see clock.py)
                    # Both clocks must contain the call: a judge's wait that fell through (DONE's record not yet
                    # visible to this process) would show here as a GPU span shorter than the call.
                    calibration.ordered &= reading.host_span_ms >= event_ms and reading.gpu_span_ms >= event_ms
                    gaps.append((reading.host_span_ms - event_ms) * 1e3)
                    calibration.tails_ms.append(done["timing"]["tail_ms"])
                    calibration.back_us.append(reading.back_ms * 1e3)
                    calibration.gpu_gaps_us.append((reading.gpu_span_ms - event_ms) * 1e3)
        poll_after_s = GATE_TIMEOUT_US / 1e6 - POLL_GO_BEFORE_THE_TIMEOUT_S
        for _ in range(CALIBRATION_TIMED_OUT_CALLS):
            reading, done = trusted_call(CALIBRATION_TIMED_OUT_SLEEP_CYCLES, poll_after_s)
            event_ms = done["timing"]["device_ms"]
            calibration.ordered &= reading.gpu_span_ms >= event_ms
            if reading.gate_timed_out:
                calibration.timed_out_gpu_gaps_us.append((reading.gpu_span_ms - event_ms) * 1e3)
            else:
                calibration.timed_out_calls_held += 1
        if not calibration.ordered:
            calibration.detail = (
                "the worker's DONE event did not order the judge's stream (a span shorter than "
                "the call): the judge's clock cannot check this worker's times"
            )
        return calibration

    def order(self, event: str, **payload) -> None:
        try:
            send(self._cmd_w, event, **payload)
        except OSError as exc:  # the worker is gone: its pipe's read end closed
            raise WorkerLost("runtime_error", f"the worker could not be reached ({exc.strerror})") from None

    def expect(self, *events: str, timeout_s: float | None = None) -> dict:
        """The worker's next message, which must be one of `events`, or its "failed"."""
        try:
            message = self.reader.get(self.deadline_s if timeout_s is None else timeout_s)
        except WireError as exc:
            raise self._lost(exc) from None
        bad = malformed_fields(message) if message["event"] in events or message["event"] == "failed" else []
        if bad:
            self.kill()
            raise WorkerLost(
                "integrity",
                f"X14: malformed message on the worker's channel ('{message['event']}' "
                f"with {', '.join(bad)} not as the judge reads them)",
            )
        if message["event"] == "failed" and "failed" not in events:
            status = message.get("status")
            if status not in CALL_FAILURE_STATUSES:  # the worker classifies a failure, it never names a verdict
                self.kill()
                raise WorkerLost(
                    "integrity",
                    f"X14: the worker reported a failed call with the status "
                    f"{str(status)[:40]!r}, which a failure cannot have",
                )
            raise SolutionFailed(
                status, str(message.get("detail", ""))[:MAX_DETAIL_CHARS], bool(message.get("fresh", True))
            )
        if (
            message["event"] == "import_failed"
            and "import_failed" in events
            and message.get("status") not in IMPORT_FAILURE_STATUSES
        ):
            self.kill()
            raise WorkerLost(
                "integrity",
                f"X14: the worker reported a failed import with the status "
                f"{str(message.get('status'))[:40]!r}, which a failure cannot have",
            )
        if message["event"] not in events:
            raise WorkerLost(
                "integrity",
                f"X14: the worker sent '{message['event'][:40]}' where the judge expected {' or '.join(events)}",
            )
        return message

    def _lost(self, exc: WireError) -> WorkerLost:
        if exc.kind == "timeout":
            self.kill()
            return WorkerLost("timeout", f"the worker sent nothing for {self.deadline_s:g} s; killed")
        if exc.kind == "malformed":
            self.kill()
            return WorkerLost("integrity", f"X14: malformed message on the worker's channel ({exc})")
        code = self._wait_briefly()
        how = _describe_exit(code)
        self.kill()
        early = " before reporting (X14: early exit)" if code == 0 else ""
        return WorkerLost("runtime_error", f"the worker ended ({how}){early}: {exc}")

    def _running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _call_going(self) -> bool:
        """Whether the worker can still finish the call the judge is watching: False once its process ended,
        its channel closed, or it reported the call failed (an error that surfaced after "queued", such as an
        illegal address seen by its synchronise)."""
        return self._running() and self.reader.pending_event() not in ("failed", PIPE_CLOSED)

    def _call_stopped(self) -> WorkerLost:
        """The call the judge watched cannot finish: why, as the shape's failure. Its events never complete,
        and the judge's stream waits on DONE: a fresh judge process takes the next shape."""
        if self._running() and self.reader.pending_event() == "failed":
            try:
                self.expect("done")
            except SolutionFailed as failed:
                self.kill()
                return WorkerLost(failed.status, failed.detail)
            except WorkerLost as lost:
                return lost
        how = self._how_it_ended()
        self.kill()
        return WorkerLost("runtime_error", f"the worker ended during its call ({how}); its log has the reason")

    def _how_it_ended(self) -> str:
        return _describe_exit(self._wait_briefly())

    def _wait_briefly(self) -> int | None:
        try:
            return self.proc.wait(timeout=2) if self.proc else None
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            if self.sandbox_why_not is None:  # unshare's child dies with it (--kill-child), and its namespace
                self.proc.kill()
            else:
                os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                send(self._cmd_w, "exit")
            except OSError:
                pass
            if self._wait_briefly() is None:
                self.kill()
        for fd in (getattr(self, "_cmd_w", -1), getattr(self, "_reply_r", -1)):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.scratch, ignore_errors=True)  # the shared buffers' files and the worker's TMPDIR

    # -- orders -----------------------------------------------------------------------------------------
    def shape_start(self, dims: tuple, dtype: torch.dtype) -> None:
        mailbox = None
        if self.device.type == "cpu":
            if self.mailbox is not None:
                self.mailbox.close()
            self.mailbox = OutputMailbox(self.scratch, dims, dtype)
            mailbox = self.mailbox.spec()
        self.slots.close()
        self.slots = InputSlots(self.device, self.scratch)
        self.opener = OutputOpener(self.device)  # the last shape's mappings of the worker's memory closed
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        self._dims, self._dtype = tuple(dims), dtype
        self.order("shape_start", dims=list(dims), dtype=str(dtype), mailbox=mailbox)
        self.expect("shape_start_done")

    def prepare(self, weights: dict) -> dict:
        slots = InputSlots(self.device, self.scratch)
        payload = slots.update(weights)
        slots.fill(weights)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        self.order("prepare", weights=payload)
        try:
            return self.expect("prepare_done")  # the worker's state holds clones: these buffers can go
        finally:
            slots.close()

    def call(self, number: int, fresh: dict, audited: bool, record_kernels: bool) -> CallReport:
        """One call on the judge's `fresh` inputs (kept private: the worker gets copies in shared buffers)."""
        payload = self.slots.update(fresh)
        if self.clock is not None:
            self.clock.hold(lambda: self.slots.fill(fresh))
        else:
            self.slots.fill(fresh)
        started = time.perf_counter()
        self.order("call", number=number, inputs=payload, audited=audited, record_kernels=record_kernels)
        try:
            queued = self.expect("queued")
        except SolutionFailed:
            if self.clock is not None:
                self.clock.release()
            raise
        out, view, contract_error = None, None, None
        try:
            check_descriptor(queued["output"], self._dims, self._dtype, self.device)
            view = self.opener.open(queued["output"], self._dtype, self.mailbox)
        except DescriptorError as exc:
            contract_error = str(exc)
        reading = None
        if self.clock is None:
            out = view.clone() if view is not None else None
        else:
            from scoring.judge.clock import EventNeverCompleted, WorkerEnded

            # The snapshot is queued now, behind the judge's wait on DONE, and taken on the GPU as soon as the
            # GPU comes back to the judge: no host moment between the span's end and the copy (clock.py).
            self.clock.follow_done(view.clone if view is not None else None)
            self.clock.release()
            try:
                reading = self.clock.watch(self._call_going)
            except WorkerEnded:  # a crash in its call (an illegal address, an abort): a failure, not a verdict
                raise self._call_stopped() from None
            except EventNeverCompleted as exc:
                self.kill()
                raise WorkerLost("integrity", f"X32: the worker said its call was queued, but {exc}") from None
            out = reading.snapshot
        self.order("taken")  # the judge has its copy: the worker frees the output and poisons for the next call
        unchanged = self.slots.unchanged(fresh)
        done = self.expect("done")
        host_ms = (time.perf_counter() - started) * 1e3
        timing = worker_timing(done.get("timing"))
        if timing is None:
            self.kill()
            raise WorkerLost(
                "integrity",
                f"X32: the worker reported times that are not finite, non-negative "
                f"numbers of milliseconds: {str(done.get('timing'))[:200]}",
            )
        return CallReport(
            out,
            contract_error,
            True if unchanged is None else bool(unchanged.item()),
            timing,
            host_ms,
            done.get("audit_profile"),
            reading,
            record_kernels,
        )

    def shape_end(self, timed: dict[int, float], prepare_launch_names: list[str]) -> dict:
        self.order("shape_end", timed={str(k): v for k, v in timed.items()}, prepare_launch_names=prepare_launch_names)
        return self.expect("shape_end_done")
