"""The wall-clock budget: run a command in its own process group and end the whole group at the limit.

On time-out the group gets SIGTERM, then SIGKILL after a grace period; the run is reported as timed out
(the caller marks it incomplete and keeps everything it wrote).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_LIMIT_S = 45 * 60.0
GRACE_S = 5.0


@dataclass(frozen=True)
class Outcome:
    exit_code: int | None  # None when it had to be killed
    wall_s: float
    timed_out: bool


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def run_with_budget(
    argv: list[str],
    limit_s: float,
    stdout: Path,
    stderr: Path,
    env: dict | None = None,
    cwd: Path | None = None,
    grace_s: float = GRACE_S,
    pass_fds: tuple[int, ...] = (),
    before_exec: Callable[[], None] | None = None,
) -> Outcome:
    """`pass_fds` stay open in the child; `before_exec` runs in the child before it executes `argv`
    (e.g. entering the run's cgroup, so that nothing the command starts escapes it)."""
    started = time.monotonic()
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        proc = subprocess.Popen(
            argv,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,
            pass_fds=pass_fds,
            preexec_fn=before_exec,
        )
        try:
            code = proc.wait(timeout=limit_s)
            _signal_group(proc.pid, signal.SIGKILL)  # leftovers of a finished run do not outlive it
            return Outcome(code, time.monotonic() - started, False)
        except subprocess.TimeoutExpired:
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
            return Outcome(None, time.monotonic() - started, True)
