"""The audited call is drawn among every timed call the shape gets (scoring/audit.py AuditReservoir), not
only among calls fixed before timing starts (INTEGRITY.md X13: with the floor of timed seconds most of a cheap
shape's calls come after the first min_calls). Run on the CPU profile, where the worker has no counter
reader: the audited calls are still made, checked and said."""

from pathlib import Path

import pytest

from scoring.audit import AuditReservoir
from scoring.config import RunConfig
from scoring.hardware import detect
from scoring.isolation import run_system
from scoring.problem import load_problem
from scoring.run import worker_task
from scoring.spec import find_problem

HOUSE = Path(__file__).resolve().parents[2] / "problems" / "softmax" / "solutions" / "house.py"


def _replayed(draw_seed: int, calls: int) -> tuple[int, int]:
    """(the last drawn timed call, how many were drawn) replaying the reservoir over `calls` timed calls."""
    reservoir = AuditReservoir(draw_seed)
    drawn = [index for index in range(calls) if reservoir.profile_before(index)]
    return drawn[-1], len(drawn)


def _seed_drawing_late(after: int) -> int:
    """A draw seed whose reservoir draws a call past `after` among the first 2 * `after` timed calls."""
    for draw_seed in range(1000):
        reservoir = AuditReservoir(draw_seed)
        if any(reservoir.profile_before(index) and index > after for index in range(2 * after)):
            return draw_seed
    raise AssertionError("no seed in 1000 draws late: the reservoir's draws are broken")


@pytest.mark.parametrize("late", [False, True])
def test_the_audited_call_is_the_reservoirs_last_draw_among_the_calls_made(tmp_path, late):
    problem = load_problem(find_problem("softmax"))
    config = RunConfig(
        problem="softmax",
        device="cpu",
        check_seeds=1,
        warmup_s=0.0,
        min_calls=3,
        min_timed_s=1.0,
        max_calls=200,
        progress=False,
        out=str(tmp_path),
    )
    hardware = detect("cpu", problem.spec.precision, peak_tflops=1.0, peak_gbps=1.0)
    shape = problem.spec.shapes_for("cpu").visible[0]
    draw_seed = _seed_drawing_late(after=config.min_calls) if late else 12345
    task = worker_task("solution", HOUSE, problem, hardware, config, 1234, audited=(shape, draw_seed))
    outcome = run_system(
        task,
        [shape],
        tmp_path / "house.log",
        import_timeout_s=300,
        shape_timeout_s=300,
        on_progress=lambda index, result: None,
    )
    (result,) = outcome.shapes
    assert result["status"] == "passed", result.get("detail")
    profile = result["audit_profile"]
    made = result["timing"]["count"]
    assert profile["why_not"] == "no counter reader in this worker (watch=false or CPU profile)"
    assert profile["timed_calls"] == made
    assert (profile["timed_call_index"], profile["calls_profiled"]) == _replayed(draw_seed, made)
    if late:  # a second of calls is many more than min_calls: the draw reaches past them
        assert made >= 2 * config.min_calls and profile["timed_call_index"] > config.min_calls, (made, profile)
