"""The audited call is drawn among every timed call a shape surely gets, not only the first min_calls
(INTEGRITY.md X13: with the floor of timed seconds most of a cheap shape's calls come after those). Run on
the CPU profile, where the worker has no counter reader: the audited call is still made, checked and said."""

from pathlib import Path

import pytest

from scoring.config import RunConfig
from scoring.hardware import detect
from scoring.isolation import run_system
from scoring.problem import load_problem
from scoring.run import worker_task
from scoring.spec import find_problem

HOUSE = Path(__file__).resolve().parents[2] / "problems" / "softmax" / "solutions" / "house.py"


@pytest.mark.parametrize("share", [0.0, 0.97])
def test_the_audited_call_lands_where_its_share_says_among_the_calls_made(tmp_path, share):
    problem = load_problem(find_problem("softmax"))
    config = RunConfig(problem="softmax", device="cpu", check_seeds=1, warmup_s=0.0, min_calls=3,
                       min_timed_s=1.0, max_calls=200, progress=False, out=str(tmp_path))
    hardware = detect("cpu", problem.spec.precision, peak_tflops=1.0, peak_gbps=1.0)
    shape = problem.spec.shapes_for("cpu").visible[0]
    task = worker_task("solution", HOUSE, problem, hardware, config, 1234, audited=(shape, share))
    outcome = run_system(task, [shape], tmp_path / "house.log", import_timeout_s=300, shape_timeout_s=300,
                         on_progress=lambda index, result: None)
    (result,) = outcome.shapes
    assert result["status"] == "passed", result.get("detail")
    profile = result["audit_profile"]
    made = result["timing"]["count"]
    assert profile["why_not"] == "no counter reader in this worker (watch=false or CPU profile)"
    assert 0 <= profile["timed_call_index"] < made  # it came before the timing stopped
    if share == 0.0:
        assert profile["timed_call_index"] == 0
    else:  # a second of calls is many more than min_calls: the draw reaches past them
        assert made > config.min_calls and profile["timed_call_index"] >= config.min_calls, (made, profile)
