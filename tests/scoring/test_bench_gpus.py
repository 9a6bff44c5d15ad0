"""scripts/bench_gpus.py on the CPU (two pinned "GPUs" that the CPU profile ignores): the lone run, the runs
at once and the lone repeat are all scored and compared shape by shape (the numbers are not asserted: a
benchmark's target is read from its committed GPU output)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FAST = "shapes=visible lines=none check_seeds=1 min_calls=2 max_calls=3 warmup_s=0 audits=false"


@pytest.mark.slow
def test_a_solution_is_scored_alone_then_on_every_gpu_at_once_and_compared(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "scripts/bench_gpus.py",
            "problem=softmax",
            "gpus=0,1",
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
    summary = json.loads(next(tmp_path.glob("*/*-gpus.json")).read_text())
    assert summary["schema"] == "ceiling.gpus-bench/1" and summary["gpus"] == ["0", "1"]
    runs = summary["runs"]
    assert set(runs["together"]) == {"0", "1"} and all(run["exit"] == 0 for run in runs["together"].values())
    assert runs["alone"]["medians_ms"] and set(runs["alone_again"]["medians_ms"]) == set(runs["alone"]["medians_ms"])
    for diff in (summary["repeat_alone"], *summary["together"].values()):
        assert set(diff) == {"shapes", "max_abs_rel_diff", "worst_shape", "median_rel_diff"}
    assert "device=cpu" in runs["alone"]["command"] and "written:" in done.stdout


def test_unknown_options_print_the_usage():
    done = subprocess.run(
        [sys.executable, "scripts/bench_gpus.py", "gpu=0"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "python scripts/bench_gpus.py" in done.stdout
