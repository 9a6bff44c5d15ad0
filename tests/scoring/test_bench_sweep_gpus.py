"""scripts/bench_sweep_gpus.py on the CPU (two pinned "GPUs" the CPU profile ignores): a fake agent's sweep runs
on the first GPU alone and then on both, every cell is scored and placed, and the summary compares them (the
numbers are not asserted: a benchmark's targets are read from its committed GPU output)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FAST = "lines=none audits=false shapes=visible check_seeds=1 min_calls=2 max_calls=3 warmup_s=0"


@pytest.mark.slow
def test_a_sweep_runs_on_one_gpu_then_on_every_gpu_and_its_cells_are_compared(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "scripts/bench_sweep_gpus.py",
            "gpus=0,1",
            "cells_per_gpu=1",
            "device=cpu",
            f"out={tmp_path}",
            f"score_args={FAST}",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    summary = json.loads(next(tmp_path.glob("*/*-sweep-gpus.json")).read_text())
    assert summary["schema"] == "ceiling.sweep-gpus-bench/1" and summary["trials"] == 2
    one, every = summary["one_gpu"]["cells"], summary["every_gpu"]["cells"]
    assert len(one) == len(every) == 2 and all(cell["status"] == "passed" for cell in [*one.values(), *every.values()])
    assert {cell["gpu"] for cell in one.values()} == {"0"} and {cell["gpu"] for cell in every.values()} == {"0", "1"}
    assert summary["reference_medians_ms"] and set(summary["max_rel_diff_every_gpu"]) == set(every)
    assert summary["speed_up"] > 0 and "gpus=0,1" in summary["every_gpu"]["command"]
