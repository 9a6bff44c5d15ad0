"""scripts/lab_judge_switch.py's summary (the GPU part needs a device: the next GPU session runs it)."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "lab_judge_switch.py"


@pytest.fixture(scope="module")
def lab():
    spec = importlib.util.spec_from_file_location("lab_judge_switch", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _call(gap_us, switch_in_us=150.0, gate=False, work="sleep:100"):
    return {
        "cupti": "off",
        "gate": "held",
        "warm": "none",
        "judge_wait": "queued",
        "before_mb": 0,
        "work": work,
        "reset": "after",
        "refill_mb": 0,
        "switch_in_us": switch_in_us,
        "call_us": 103.0,
        "switch_out_us": 140.0,
        "gap_us": gap_us,
        "gate_timed_out": gate,
    }


def test_the_high_mode_is_counted_against_the_lowest_decile(lab):
    calls = [_call(290.0 + i % 3) for i in range(16)] + [_call(375.0, switch_in_us=235.0, gate=True)] * 4
    (summary,) = lab.summarize(calls)
    assert summary["calls"] == 20
    assert summary["high_mode_share"] == 0.2  # 4 of 20 calls more than 30 us above the lowest decile
    assert summary["gate_timed_out"] == 4
    assert summary["gap_us"] == 291.0 and summary["gap_p90_us"] == 375.0
    assert summary["switch_in_us"] == 150.0


def test_each_combination_is_summarized_apart(lab):
    calls = [_call(290.0), _call(300.0), _call(500.0, work="copy:256"), _call(510.0, work="copy:256")]
    summaries = {s["work"]: s for s in lab.summarize(calls)}
    assert set(summaries) == {"sleep:100", "copy:256"}
    assert summaries["copy:256"]["gap_us"] == 505.0
    assert "copy:256" in lab.table(list(summaries.values()))


def test_an_unknown_option_is_refused_with_the_keys(lab):
    with pytest.raises(SystemExit, match="use key=value with keys"):
        lab.parse_options(["calls=10", "colls=3"])
    assert lab.parse_options(["calls=10"])["calls"] == "10"


def test_calls_recorded_before_judge_ops_existed_read_as_the_scorers(lab):
    old = [_call(290.0), _call(292.0)]  # records of 2026-11-27 before 22:20 have no judge_ops: the scorer's ops
    new = [dict(_call(250.0), judge_ops="copy_flush"), dict(_call(252.0), judge_ops="copy_flush")]
    summaries = {s["judge_ops"]: s for s in lab.summarize(old + new)}
    assert set(summaries) == {"scorer", "copy_flush"}
    assert summaries["scorer"]["gap_us"] == 291.0 and summaries["copy_flush"]["gap_us"] == 251.0
    assert "copy_flush" in lab.table(list(summaries.values()))
