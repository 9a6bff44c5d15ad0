"""Every problem, end to end on the CPU profile: its house kernel passes, its known-wrong solutions fail
with the classification they declare (EXPECTED), and zeros and pass-through exist for each (X01)."""

import pytest

from scoring.problem import load_problem
from scoring.spec import discover_problems
from tests.problems.helpers import expected_statuses, score_on_cpu, wrong_solutions

PROBLEMS = discover_problems()
WRONG = [(name, path) for name, directory in PROBLEMS.items() for path in wrong_solutions(directory)]


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_problem_loads_and_declares_the_required_wrong_solutions(name):
    problem = load_problem(PROBLEMS[name])
    stems = {p.stem for p in wrong_solutions(problem.spec.directory)}
    assert {"zeros", "passthrough"} <= stems, f"{name} needs solutions/wrong/zeros.py and passthrough.py (X01)"
    assert (problem.spec.directory / "solutions" / "house.py").is_file()
    assert (problem.spec.directory / "prompt.md").is_file()


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_house_kernel_passes_every_shape_on_cpu(name, tmp_path):
    result = score_on_cpu(name, None, tmp_path)
    shapes = result["systems"][0]["shapes"]
    assert result["status"] == "passed", [(s["name"], s["status"], s.get("detail")) for s in shapes]
    assert {s["shape_set"] for s in shapes} == {"visible", "held_out", "property"}
    timed = [s for s in shapes if s["shape_set"] != "property"]
    assert all(s["timing"]["count"] >= 2 and s["fraction"] > 0 for s in timed)


@pytest.mark.parametrize("name,solution", WRONG, ids=[f"{n}-{p.stem}" for n, p in WRONG])
def test_known_wrong_solution_gets_its_declared_classification(name, solution, tmp_path):
    expected = expected_statuses(solution)["cpu"]
    result = score_on_cpu(name, solution, tmp_path)
    statuses = [(s["name"], s["status"]) for s in result["systems"][0]["shapes"]]
    assert result["status"] == expected, statuses
    if expected != "passed":
        assert result["score"]["fraction"] == 0.0
