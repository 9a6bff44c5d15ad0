"""Worker processes started ahead of need, so the next one's start overlaps the current one's timing.

A worker spends ~3.9 s in the interpreter's start and its imports (torch, Triton, the scorer) before it does
anything with the GPU (median over a day of result files' `processes` on the H100s), and a run starts
one per system, more when a shape crashes its process. Every worker is therefore started the same way: the
interpreter and `scoring.judge`'s imports, then it waits on its stdin for its order (the task file and the
system's log). Started at once, it gets its order at once; started while the previous system is being timed
(a `Standby`, only where a later system of the run will need a worker: scoring/run.py), it waits,
importing nothing more and touching no GPU, until the supervisor hands it the next system's order. From
the order on, both run the same steps (the judge starts its worker, which imports the solution),
with stdin reset to /dev/null and their output appended to the system's log, so the solution finds the
same process, argv and descriptors either way: only the process's start time says how long it waited.
Never two timings on one GPU: a waiting worker has not created a CUDA context.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def kill_group(proc: subprocess.Popen) -> None:
    """Kill a worker and everything it started (its own session: start_new_session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class WorkerProcess:
    """One `python -m scoring.judge` process, from its start to its order, then the supervisor's."""

    def __init__(self, env: dict[str, str], cwd: Path):
        self.env = env
        read_fd, write_fd = os.pipe()
        # What the interpreter prints before the order (import warnings, a failed import) is kept here; the
        # worker moves it into the system's log when the order comes, the supervisor if it ended before.
        self._early_output = tempfile.NamedTemporaryFile("w+b", prefix="ceiling-worker-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scoring.judge", str(write_fd)],
            pass_fds=(write_fd,),
            stdin=subprocess.PIPE,
            stdout=self._early_output,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(write_fd)
        self.read_fd = read_fd
        self.started = time.monotonic()
        self.ordered: float | None = None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def give(self, task_path: str, log_path: Path) -> None:
        """Hand over the system's order; the worker moves what it printed before it into the log itself."""
        order = (
            json.dumps({"task": task_path, "log": str(log_path.resolve()), "early_output": self._early_output.name})
            + "\n"
        )
        self.ordered = time.monotonic()
        try:
            self.proc.stdin.write(order.encode())
            self.proc.stdin.close()
        except BrokenPipeError:  # it died waiting: the supervisor sees the pipe close and reports the exit
            pass

    def keep_early_output(self, log) -> None:
        """After the process ended: what it printed before taking its order (a failed import of the scorer
        itself, say) goes into the log, if the worker did not move it there."""
        self._early_output.close()
        early = Path(self._early_output.name)
        if early.exists():
            log.write(early.read_bytes())
            log.flush()
            early.unlink(missing_ok=True)

    def waited_s(self) -> float:
        """Seconds between the process's start and its order (0 for one started for the order)."""
        return (self.ordered or time.monotonic()) - self.started

    def discard(self) -> None:
        kill_group(self.proc)
        self.proc.wait()
        os.close(self.read_fd)
        self._early_output.close()
        Path(self._early_output.name).unlink(missing_ok=True)


class Standby:
    """At most one worker waiting for its order, shared by the systems a process scores (threads included)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._waiting: WorkerProcess | None = None
        atexit.register(self.close)

    def take(self, env: dict[str, str], cwd: Path) -> tuple[WorkerProcess, bool]:
        """(a worker for this environment, whether it was started ahead); never one started for another."""
        with self._lock:
            waiting, self._waiting = self._waiting, None
        if waiting is not None and waiting.env == env and waiting.alive():
            return waiting, True
        if waiting is not None:
            waiting.discard()
        return WorkerProcess(env, cwd), False

    def prepare(self, env: dict[str, str], cwd: Path) -> None:
        """Start the next worker now, if none is waiting."""
        with self._lock:
            if self._waiting is not None:
                return
            self._waiting = WorkerProcess(env, cwd)

    def waiting(self) -> bool:
        return self._waiting is not None

    def close(self) -> None:
        with self._lock:
            waiting, self._waiting = self._waiting, None
        if waiting is not None:
            waiting.discard()


STANDBY = Standby()
