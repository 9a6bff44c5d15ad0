"""scripts/bench_deck.py on the CPU: a cold run measures the reference line, the warm run reuses it, and the
summary records both wall times, the reuse and the repeat agreement (its numbers are not asserted: a
benchmark's targets are read from its committed GPU output)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FAST = (
    "shapes=visible lines=eager check_seeds=1 min_calls=2 max_calls=3 warmup_s=0 audits=false "
    "peak_tflops=1 peak_gbps=10"
)  # given peaks: the CPU profile reuses a line only under given peaks


@pytest.mark.slow
def test_the_warm_run_reuses_the_cold_runs_line_and_the_summary_says_so(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "scripts/bench_deck.py",
            "problems=softmax",
            "device=cpu",
            f"out={tmp_path}",
            f"results={tmp_path / 'runs'}",
            "cold_runs=2",
            f"score_args={FAST}",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    summary = json.loads(next(tmp_path.glob("*/*-deck.json")).read_text())
    row = summary["problems"]["softmax"]
    assert summary["schema"] == "ceiling.deck-bench/1" and summary["hardware"]["profile"] == "cpu"
    assert (row["cold"]["exit"], row["warm"]["exit"]) == (0, 0)
    assert "fresh_lines=true" in row["cold"]["command"] and "fresh_lines=false" in row["warm"]["command"]
    assert row["warm_lines_reused"] == "1/1"
    assert summary["deck_cold_s"] == row["cold_s"] > 0 and summary["deck_warm_s"] == row["warm_s"] > 0
    assert set(row["repeat_agreement"]) == {"shapes", "max_rel_diff", "worst_shape", "within_1pct"}
    second = row["cold_repeats"]["cold2"]  # measured the line afresh: its agreement with the first cold run
    assert "fresh_lines=true" in second["command"] and second["exit"] == 0
    assert set(second["lines_agreement"]) == {"eager"}
    assert set(second["lines_agreement"]["eager"]) == set(second["house_agreement"]) == set(row["repeat_agreement"])
    kept = [tmp_path / "runs" / row[phase]["result"] for phase in ("cold", "warm")]
    assert all(path.is_file() for path in kept) and kept[0] != kept[1]  # results= keeps both runs' files
    compared = subprocess.run(
        [sys.executable, "scripts/bench_deck.py", f"compare={kept[0]},{tmp_path / 'runs' / second['result']}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compared.returncode == 0 and compared.stdout.splitlines()[1].startswith("eager        shapes")
    compared = subprocess.run(
        [sys.executable, "scripts/bench_deck.py", f"compare={kept[0]},{kept[1]}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "eager        reused from an earlier result in one of them" in compared.stdout
    cold, warm = row["cold"]["seconds"], row["warm"]["seconds"]
    assert cold["worker_starts"] == 2 and warm["worker_starts"] == 1  # house + line cold; the line reused warm
    assert 0 < cold["spawn_to_imported_s"] < cold["systems_s"] and cold["checks_s"] > 0
    parts = sum(v for k, v in cold.items() if k.endswith("_s") and k not in ("systems_s", "other_s"))
    assert abs(parts + cold["other_s"] - cold["systems_s"]) < 1e-6


def test_unknown_options_print_the_usage():
    done = subprocess.run(
        [sys.executable, "scripts/bench_deck.py", "problem=softmax"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "python scripts/bench_deck.py" in done.stdout


@pytest.mark.parametrize(
    "argument, says",
    [
        ("cold_runs=0", "cold_runs=0: a whole number of cold runs, at least 1"),
        ("cold_runs=two", "cold_runs=two: a whole number"),
        ("compare=missing.json,b.json", "compare: missing.json cannot be read"),
    ],
)
def test_bad_arguments_say_what_is_wrong(argument, says):
    done = subprocess.run(
        [sys.executable, "scripts/bench_deck.py", argument], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and says in done.stdout
