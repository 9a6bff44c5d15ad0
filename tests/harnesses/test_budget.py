"""The wall-clock budget ends the whole process group, and a cut-off run is kept and marked incomplete."""

import json
import os
import time
from pathlib import Path

from harnesses.budget import run_with_budget
from harnesses.runner import run_one
from tests.harnesses.conftest import config_for, needs_bwrap


def _alive(marker: str) -> bool:
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker in cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                return True
        except OSError:
            continue
    return False


def _gone_within(marker: str, seconds: float = 5.0) -> bool:
    """Killed processes leave /proc a moment later (a sandbox's PID namespace is torn down asynchronously)."""
    deadline = time.monotonic() + seconds
    while _alive(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _unique_sleep_seconds() -> str:
    """A sleep length no other test run on this machine uses, so a concurrent run cannot look like a survivor."""
    return f"3600.{os.getpid()}{time.monotonic_ns() % 10_000:04d}"


def test_limit_ends_the_process_group(tmp_path):
    first, second = _unique_sleep_seconds(), _unique_sleep_seconds()
    started = time.monotonic()
    outcome = run_with_budget(
        ["sh", "-c", f"sleep {first} & sleep {second}"], 1.0, tmp_path / "o", tmp_path / "e", grace_s=1.0
    )
    assert outcome.timed_out and outcome.exit_code is None
    assert time.monotonic() - started < 10
    assert _gone_within(first) and _gone_within(second)


def test_finished_command_is_not_timed_out(tmp_path):
    outcome = run_with_budget(["sh", "-c", "echo hi; exit 3"], 10.0, tmp_path / "o", tmp_path / "e")
    assert (outcome.exit_code, outcome.timed_out) == (3, False)
    assert (tmp_path / "o").read_text() == "hi\n"


@needs_bwrap
def test_hanging_agent_is_cut_off_and_kept(fake_dir, tmp_path):
    marker = _unique_sleep_seconds()
    (fake_dir / "fake_behaviour.json").write_text(json.dumps({"mode": "hang", "hang_sleep": marker}))
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="claude", time_limit_s=3))
    record = json.loads((run_dir / "run.json").read_text())
    assert record["finished"] and record["timed_out"] and not record["complete"]
    assert "wall-clock limit of 3 s" in record["incomplete_reason"]
    assert record["wall_s"] < 15
    assert (run_dir / "transcript.jsonl").read_text().startswith('{"type": "system"')  # kept, not lost
    assert _gone_within(marker)


@needs_bwrap
def test_cut_off_stream_is_incomplete(fake_dir, tmp_path):
    (fake_dir / "fake_behaviour.json").write_text(json.dumps({"mode": "cut"}))
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="opencode"))
    record = json.loads((run_dir / "run.json").read_text())
    assert not record["complete"] and "exited with status 1" in record["incomplete_reason"]
    assert "not 'stop'" in record["incomplete_reason"]
