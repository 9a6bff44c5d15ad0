"""scripts/bench_ab.py on the CPU: interleaved runs of two option sets, compared per shape (its numbers are
not asserted: a benchmark's findings are read from its committed GPU output)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from scripts.bench_ab import compare_sides  # noqa: E402

FAST = "shapes=visible lines=eager check_seeds=1 min_calls=2 max_calls=3 warmup_s=0 audits=false"


def _run(medians_ms: dict) -> dict:
    return {
        "systems": [
            {
                "shapes": [
                    {"name": name, "status": "passed", "timing": {"median_ms": ms}} for name, ms in medians_ms.items()
                ]
            }
        ]
    }


def test_a_shift_beyond_both_sides_spread_is_counted_and_short_shapes_are_left_out():
    side_a = [_run({"s1": 1.00, "s2": 2.00, "tiny": 0.01}), _run({"s1": 1.01, "s2": 2.02, "tiny": 0.011})]
    side_b = [_run({"s1": 1.05, "s2": 2.00, "tiny": 0.02}), _run({"s1": 1.05, "s2": 2.04, "tiny": 0.02})]
    compared = compare_sides(side_a, side_b)
    assert set(compared["shapes"]) == {"s1", "s2"}  # under 50 us: left out
    s1 = compared["shapes"]["s1"]
    assert s1["b_vs_a"] == pytest.approx(1.05 / 1.005 - 1) and s1["a_spread"] == pytest.approx(0.005 / 1.005)
    assert compared["clear_of_spread"] == 1 and (compared["b_slower_on"], compared["b_faster_on"]) == (2, 0)


@pytest.mark.slow
def test_two_rounds_alternate_the_sides_and_write_the_comparison(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "scripts/bench_ab.py",
            "a=prestart=true",
            "b=prestart=false",
            "problems=softmax",
            "device=cpu",
            "rounds=2",
            f"out={tmp_path}",
            f"score_args={FAST}",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    order = [line.split()[2] for line in done.stdout.splitlines() if line.startswith("round")]
    assert order == ["a", "b", "b", "a"]
    summary = json.loads(next(tmp_path.glob("*/*-ab.json")).read_text())
    row = summary["problems"]["softmax"]
    assert summary["schema"] == "ceiling.ab-bench/1" and (summary["a"], summary["b"]) == (
        "prestart=true",
        "prestart=false",
    )
    assert [len(row["runs"][side]) for side in ("a", "b")] == [2, 2]
    assert all("prestart=false" in run["command"] for run in row["runs"]["b"])
    assert all(run["seconds"]["workers_started_ahead"] == 0 for run in row["runs"]["b"])
    # the house's worker started before the scorer's imports, the eager line's while the house ran
    assert all(run["seconds"]["workers_started_ahead"] == 2 for run in row["runs"]["a"])
