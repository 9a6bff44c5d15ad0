"""The judge's watch over a call after "queued": a worker that dies, or reports a failure, while the judge waits
on its events is said at once as the shape's failure, never after EVENT_DEADLINE_S as an X32 integrity verdict.

Found on an H100 (2026-11-27, kernelbench.com's kinetic-0715 w4a16 file): its CUDA path made an illegal
address access, the worker aborted after "queued", and the judge waited 120 s for DONE, then called it "X32:
the worker said its call was queued, but an event did not complete". The GPU side of this (a real crash) is
for a GPU run; here the parts that decide it: the poll, the channel's look-ahead and the link's verdict.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from scoring.judge import clock
from scoring.judge.link import WorkerLink, WorkerLost, _describe_exit
from scoring.wire import PIPE_CLOSED, Reader, send

REPO = Path(__file__).resolve().parents[2]


class _NeverCompletes:
    def query(self) -> bool:
        return False


class _CompletesAfter:
    def __init__(self, polls: int):
        self.polls = polls

    def query(self) -> bool:
        self.polls -= 1
        return self.polls < 0


def test_a_dead_worker_ends_the_wait_at_once():
    started = time.perf_counter()
    with pytest.raises(clock.WorkerEnded):
        clock._completed_at(_NeverCompletes(), lambda: False)
    assert time.perf_counter() - started < 1.0  # EVENT_DEADLINE_S is 120 s


def test_a_running_worker_is_waited_for_until_the_deadline(monkeypatch):
    monkeypatch.setattr(clock, "EVENT_DEADLINE_S", 0.05)
    with pytest.raises(clock.EventNeverCompleted):
        clock._completed_at(_NeverCompletes(), lambda: True)
    assert clock._completed_at(_CompletesAfter(3), lambda: True) > 0


def test_pending_event_looks_ahead_without_consuming():
    read_fd, write_fd = os.pipe()
    reader = Reader(read_fd)
    assert reader.pending_event() is None
    os.write(write_fd, b'{"event": "fai')
    assert reader.pending_event() is None  # half a message
    os.write(write_fd, b'led", "status": "runtime_error"}\n')
    assert reader.pending_event() == "failed"
    assert reader.get(1.0)["status"] == "runtime_error"  # still there for `get`
    send(write_fd, "done", timing={})
    os.close(write_fd)
    assert reader.pending_event() == "done"  # a whole message before the close comes first
    reader.get(1.0)
    assert reader.pending_event() == PIPE_CLOSED
    os.close(read_fd)


def _link_to(script: str) -> WorkerLink:
    """A WorkerLink (CPU) whose "worker" is `script`, writing to the link's reply channel as fd 3."""
    link = WorkerLink(torch.device("cpu"), dict(os.environ), REPO)
    reply_r, reply_w = os.pipe()
    link.proc = subprocess.Popen(
        [sys.executable, "-c", script],
        pass_fds=(reply_w,),
        env=dict(os.environ, REPLY_FD=str(reply_w)),
        start_new_session=True,
    )
    os.close(reply_w)
    link.reader = Reader(reply_r)
    link._reply_r, link._cmd_w = reply_r, -1
    return link


def _wait_until_stopped(link: WorkerLink) -> None:
    deadline = time.monotonic() + 30
    while link._call_going():
        assert time.monotonic() < deadline, "the fake worker never stopped"
        time.sleep(0.01)


def test_a_worker_that_aborts_after_queued_is_a_runtime_error():
    link = _link_to("import os, signal; os.kill(os.getpid(), signal.SIGABRT)")
    try:
        _wait_until_stopped(link)
        lost = link._call_stopped()
    finally:
        link.close()
    assert isinstance(lost, WorkerLost)
    assert lost.status == "runtime_error"
    assert "ended during its call (killed by SIGABRT)" in lost.detail


def test_a_worker_that_reports_a_failure_after_queued_gets_that_failure():
    script = (
        "import json, os, time\n"
        "line = json.dumps({'event': 'failed', 'status': 'runtime_error', 'fresh': True,\n"
        "                   'detail': 'AcceleratorError: an illegal memory access was encountered'})\n"
        "os.write(int(os.environ['REPLY_FD']), (line + '\\n').encode())\n"
        "time.sleep(60)\n"
    )
    link = _link_to(script)
    try:
        _wait_until_stopped(link)
        lost = link._call_stopped()
        assert link.proc.poll() is not None  # killed: its context cannot finish the call
    finally:
        link.close()
    assert lost.status == "runtime_error"
    assert "illegal memory access" in lost.detail


def test_a_worker_that_only_says_done_is_still_waited_for():
    # An honest worker sends "done" after its device-wide synchronise; the judge may see it a moment before
    # it sees DONE complete. That is no reason to stop watching.
    link = _link_to(
        "import json, os, time\n"
        "os.write(int(os.environ['REPLY_FD']), (json.dumps({'event': 'done', 'timing': {}}) + "
        "'\\n').encode())\ntime.sleep(60)\n"
    )
    try:
        deadline = time.monotonic() + 5
        while link.reader.pending_event() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert link.reader.pending_event() == "done"
        assert link._call_going()
    finally:
        link.close()


def test_exit_codes_in_words():
    assert _describe_exit(None) == "still running"
    assert _describe_exit(3) == "exit code 3"
    assert _describe_exit(-signal.SIGSEGV) == "killed by SIGSEGV"
