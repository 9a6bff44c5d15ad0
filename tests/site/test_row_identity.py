"""Which leaderboard row a scored system belongs to."""

from pathlib import Path

from board.frame import row_identity
from board.load import Run


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


def test_the_board_counts_the_newest_house_code_and_only_runs_with_a_headline():
    import pandas as pd

    from board.rank import board_trials

    def trial(run_id, created, kind, sha, complete, status="passed"):
        return {"run_id": run_id, "created": created, "row_kind": kind, "problem": "w4a16_gemm",
                "solution_sha": sha, "complete": complete, "status": status, "scorer_version": "v1",
                "run_reasons": "", "flagged": False, "verdict": ""}

    frame = pd.DataFrame([
        trial("old-house", "2026-11-22T04:13", "house", "aaa", True),
        trial("new-house", "2026-11-22T06:51", "house", "bbb", True),
        trial("new-house-visible-only", "2026-11-22T06:52", "house", "bbb", False),
        trial("library-line", "2026-11-22T04:13", "reference", "", True),
        trial("agent-failed-visible-only", "2026-11-22T05:00", "agent", "ccc", False, status="forbidden_op"),
        trial("wrong-demo", "2026-11-22T05:00", "solution", "ddd", True, status="forbidden_op"),
    ])
    kept = set(board_trials(frame)["run_id"])
    assert kept == {"new-house", "library-line", "agent-failed-visible-only"}
