"""Reference lines measured once and reused from the results folder (scoring/line_cache.py)."""

import json

from scoring.config import RunConfig
from scoring.line_cache import find_cached_line
from scoring.result_checks import check_result
from scoring.run import run

# Fixed peaks: the CPU profile measures its ceilings afresh each run, and a line measured under other peaks
# has other fractions, so such lines are never reused.
QUICK = dict(
    problem="softmax",
    device="cpu",
    shapes="all",
    lines="eager",
    audits=False,
    check_seeds=1,
    min_calls=2,
    max_calls=3,
    warmup_s=0.0,
    budget_s=0.2,
    peak_tflops=1.0,
    peak_gbps=10.0,
    progress=False,
)


def score(tmp_path, **overrides):
    config = RunConfig(out=str(tmp_path), **{**QUICK, **overrides})
    result, path = run(config, ["(test)"])
    return result, path


def test_a_line_is_measured_once_then_copied_with_where_it_came_from(tmp_path):
    first, first_path = score(tmp_path)
    measured = first["systems"][1]
    assert measured["role"] == "eager" and "cached_from" not in measured and measured["line_key_sha256"]
    assert {s["shape_set"] for s in measured["shapes"]} == {"visible", "held_out"}  # no property shapes
    second, second_path = score(tmp_path)
    cached = second["systems"][1]
    assert cached["cached_from"] == first_path.relative_to(tmp_path).as_posix()
    assert [s["timing"]["median_ms"] for s in cached["shapes"]] == [
        s["timing"]["median_ms"] for s in measured["shapes"]
    ]
    assert second["systems"][0]["shapes"] != first["systems"][0]["shapes"]  # the solution is measured again
    for path in (first_path, second_path):
        assert check_result(json.loads(path.read_text()), str(path)) == []  # both valid result files

    fresh, _ = score(tmp_path, fresh_lines=True)
    assert "cached_from" not in fresh["systems"][1]
    other_policy, _ = score(tmp_path, max_calls=4)  # another timing policy is another key
    assert "cached_from" not in other_policy["systems"][1]


def test_only_a_passed_measured_line_is_reused(tmp_path):
    folder = tmp_path / "cpu"
    folder.mkdir()
    line = {"role": "eager", "status": "passed", "line_key_sha256": "k" * 64, "shapes": []}
    (folder / "20260101T000000Z-a.json").write_text(json.dumps({"systems": [{}, dict(line, status="timeout")]}))
    assert find_cached_line(folder, "k" * 64) is None
    (folder / "20260101T000001Z-b.json").write_text(json.dumps({"systems": [{}, dict(line, cached_from="x.json")]}))
    assert find_cached_line(folder, "k" * 64) is None  # a copy is not a measurement
    (folder / "20260101T000002Z-c.json").write_text(json.dumps({"systems": [{}, line]}))
    (folder / "20260101T000003Z-d.json").write_text("{truncated")
    path, system = find_cached_line(folder, "k" * 64)
    assert path.name == "20260101T000002Z-c.json" and system["status"] == "passed"


def test_the_lines_have_their_own_budget_never_longer_than_the_solutions():
    from scoring.run import timing_policy

    defaults = RunConfig(problem="softmax")
    solution, line = timing_policy("solution", defaults), timing_policy("eager", defaults)
    assert (solution.target_rse, solution.budget_s) == (0.005, 15.0)
    assert (line.target_rse, line.budget_s) == (0.005, 5.0)
    assert timing_policy("library", RunConfig(problem="softmax", budget_s=0.2)).budget_s == 0.2


def test_the_solutions_budget_does_not_key_a_line_but_the_lines_does(tmp_path):
    _, first_path = score(tmp_path, line_budget_s=0.1)
    longer_solution, _ = score(tmp_path, line_budget_s=0.1, budget_s=0.3)  # the line's budget is still 0.1
    assert longer_solution["systems"][1]["cached_from"] == first_path.relative_to(tmp_path).as_posix()
    other_line_budget, _ = score(tmp_path, line_budget_s=0.15)
    assert "cached_from" not in other_line_budget["systems"][1]
    assert other_line_budget["systems"][1]["line_key"]["timing"]["budget_s"] == 0.15


def test_every_committed_reused_line_names_a_committed_result_that_measured_it():
    """A reused line's provenance is its `cached_from` file: that file must be in the repository (a deck's new
    result files are untracked while it runs, and the cache reads them), and it must hold the measured system
    with the same line key, so anyone can check the line where it was measured."""
    from tests.scoring.test_result_schema import REPO, committed_results

    by_name = {path.relative_to(REPO / "results").as_posix(): data for path, data in committed_results()}
    reused = 0
    for name, data in by_name.items():
        for system in data["systems"][1:]:
            source = system.get("cached_from")
            if not source:
                continue
            reused += 1
            assert source in by_name, (
                f"results/{name}: {system['role']} line cached from results/{source}, not committed"
            )
            measured = [
                s
                for s in by_name[source]["systems"][1:]
                if s.get("line_key_sha256") == system.get("line_key_sha256") and not s.get("cached_from")
            ]
            assert measured, f"results/{name}: results/{source} holds no measured line with its line_key_sha256"
    assert reused > 100
