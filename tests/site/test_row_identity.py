"""Which leaderboard row a scored system belongs to."""

from pathlib import Path

from viewer.leaderboard.frame import row_identity
from viewer.leaderboard.load import Run


def run_with(agent, solution_path):
    data = {"agent": agent, "systems": [{"role": "solution", "name": Path(solution_path).stem, "path": solution_path}]}
    return Run(Path("r.json"), data, "digest", None, None)


def test_only_the_problems_house_file_is_the_house_row():
    house = run_with(None, "problems/fp8_gemm/solutions/house.py")
    assert row_identity(house, 0, house.data["systems"][0])[:2] == ("house", "house")
    wrong = run_with(None, "problems/fp8_gemm/solutions/wrong/bf16_cast.py")
    key, kind, label, _slug = row_identity(wrong, 0, wrong.data["systems"][0])
    assert kind == "solution" and key.endswith("wrong/bf16_cast.py") and "bf16_cast" in label


def test_agent_rows_are_keyed_by_harness_model_and_effort():
    run = run_with({"harness": "codex", "model": "gpt-x", "effort": "high"}, "/tmp/solution.py")
    assert row_identity(run, 0, run.data["systems"][0])[:3] == ("agent:codex/gpt-x/high", "agent", "codex · gpt-x · high")
    reference = {"role": "library", "name": "library", "path": "x"}
    assert row_identity(run, 1, reference)[:2] == ("ref:library", "reference")
