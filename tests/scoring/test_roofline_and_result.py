"""Roofline arithmetic, scoring of shapes, and the write-once result file."""

import json
import math

import pytest

from scoring.result import SCHEMA, add_roofline, load_result, geomean_score, system_status, write_result
from scoring.roofline import geomean, roofline_point, roofline_ms


def test_roofline_takes_the_larger_of_compute_and_memory_time():
    # 2 TFLOP at 1000 TFLOPS = 2 ms; 1 GB at 1000 GB/s = 1 ms -> compute-bound, 2 ms.
    assert roofline_ms(2e12, 1e9, 1000, 1000) == (pytest.approx(2.0), "compute")
    assert roofline_ms(1e9, 4e9, 1000, 1000) == (pytest.approx(4.0), "memory")
    measured = roofline_point(2 * 10**12, 10**9, 4.0, 1000, 1000)
    assert measured.fraction == pytest.approx(0.5)
    assert measured.achieved_tflops == pytest.approx(500)


def test_geomean_is_zero_with_a_failure_and_nan_when_empty():
    assert geomean([0.25, 1.0]) == pytest.approx(0.5)
    assert geomean([0.5, 0.0]) == 0.0
    assert math.isnan(geomean([]))


def passed_shape(name, shape_set, median_ms):
    return {"name": name, "shape_set": shape_set, "params": {}, "status": "passed", "timing": {"median_ms": median_ms}}


def test_a_fraction_above_one_is_rejected_not_scored():
    shape = add_roofline(
        passed_shape("s", "visible", 0.5), flops=2 * 10**12, bytes_moved=1, peak_tflops=1000, peak_gbps=1000
    )  # roofline 2 ms, measured 0.5 ms: 4x faster than physics allows
    assert shape["status"] == "rejected" and "physically impossible" in shape["detail"]


def test_score_is_the_geomean_over_visible_and_held_out_and_reports_the_gap():
    shapes = [
        dict(passed_shape("a", "visible", 1), fraction=0.8),
        dict(passed_shape("b", "visible", 1), fraction=0.2),
        dict(passed_shape("c", "held_out", 1), fraction=0.1),
        {"name": "p", "shape_set": "property", "params": {}, "status": "passed"},
    ]
    result = geomean_score(shapes, "passed")
    assert result["fraction"] == pytest.approx((0.8 * 0.2 * 0.1) ** (1 / 3))
    assert result["visible_fraction"] == pytest.approx(0.4)
    assert result["generalisation_gap"] == pytest.approx(0.3)
    shapes[3]["status"] = "incorrect"  # a failing property shape zeroes the headline
    assert geomean_score(shapes, system_status(shapes, []))["fraction"] == 0.0


def test_status_is_the_most_serious_and_a_failed_audit_is_integrity():
    shapes = [{"status": "passed"}, {"status": "incorrect"}, {"status": "timeout"}]
    assert system_status(shapes, []) == "timeout"
    assert system_status([{"status": "passed"}], [{"outcome": "failed (X20: bf16)"}]) == "integrity"
    assert system_status([{"status": "passed"}], [{"outcome": "not verified (no ncu)"}]) == "passed"


def test_results_are_written_once_and_validated_on_load(tmp_path):
    result = {"schema": SCHEMA, "run_id": "r1", "problem": {}, "hardware": {}, "systems": []}
    path = write_result(result, tmp_path)
    assert json.loads(path.read_text())["run_id"] == "r1"
    with pytest.raises(FileExistsError):
        write_result(dict(result, problem={"changed": True}), tmp_path)
    assert json.loads(path.read_text())["problem"] == {}  # the earlier result is intact
    assert [p.name for p in tmp_path.iterdir()] == ["r1.json"]  # no temporary file left behind
    path.write_text(json.dumps(dict(result, schema="ceiling.result/0")))
    with pytest.raises(ValueError, match="field 'schema'"):
        load_result(path)
