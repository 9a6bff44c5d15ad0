"""The wall-clock budget ends the whole process group, and a cut-off run is kept and marked incomplete."""

import json
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


def test_limit_ends_the_process_group(tmp_path):
    started = time.monotonic()
    outcome = run_with_budget(["sh", "-c", "sleep 3600.4101 & sleep 3600.4102"], 1.0, tmp_path / "o", tmp_path / "e",
                              grace_s=1.0)
    assert outcome.timed_out and outcome.exit_code is None
    assert time.monotonic() - started < 10
    time.sleep(0.2)
    assert not _alive("3600.4101") and not _alive("3600.4102")


def test_finished_command_is_not_timed_out(tmp_path):
    outcome = run_with_budget(["sh", "-c", "echo hi; exit 3"], 10.0, tmp_path / "o", tmp_path / "e")
    assert (outcome.exit_code, outcome.timed_out) == (3, False)
    assert (tmp_path / "o").read_text() == "hi\n"


@needs_bwrap
def test_hanging_agent_is_cut_off_and_kept(fake_dir, tmp_path):
    (fake_dir / "fake_behaviour.json").write_text(json.dumps({"mode": "hang", "hang_sleep": "3600.4203"}))
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="claude", time_limit_s=3))
    record = json.loads((run_dir / "run.json").read_text())
    assert record["finished"] and record["timed_out"] and not record["complete"]
    assert "wall-clock limit of 3 s" in record["incomplete_reason"]
    assert record["wall_s"] < 15
    assert (run_dir / "transcript.jsonl").read_text().startswith('{"type": "system"')  # kept, not lost
    assert not _alive("3600.4203")


@needs_bwrap
def test_cut_off_stream_is_incomplete(fake_dir, tmp_path):
    (fake_dir / "fake_behaviour.json").write_text(json.dumps({"mode": "cut"}))
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="opencode"))
    record = json.loads((run_dir / "run.json").read_text())
    assert not record["complete"] and "exited with status 1" in record["incomplete_reason"]
    assert "not 'stop'" in record["incomplete_reason"]
