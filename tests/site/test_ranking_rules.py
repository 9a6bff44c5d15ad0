"""The ranking rules (board/ranking_rules.py): a cell counts only runs of one scorer version, with audits on,
from a clean checkout, on every shape set, by a real agent or the house kernel; every other run is listed with
its reasons; a harness test (a fake agent) is never ranked, never a best run, never plotted.

Each excluded fixture run is faster (1.4-1.45x the committed house kernel) than anything ranked, so a leak would
show as a cell, a best run or a figure point with its number."""

import json
import re

import pytest

from tests.site.fixtures import REPO, rules_tree, template

RULE_RUNS = ("e2e-fake", "rule-dirty", "rule-noaudit", "rule-head", "rule-old", "rule-visible")


@pytest.fixture(scope="module")
def rules_site(tmp_path_factory):
    from board import BuildConfig, build

    root = tmp_path_factory.mktemp("rules")
    results = rules_tree(root / "results")
    report = build(BuildConfig(results=str(results), out=str(root / "site")), log=lambda line: None)
    return report, results, root / "site"


def _counted(results):
    from board.frame import build_frames
    from board.load import load_runs
    from board.rank import annotate, board_trials

    trials, _ = build_frames(load_runs(results, {"fp8_gemm"}).runs)
    return annotate(trials), board_trials(annotate(trials))


def test_no_excluded_run_is_counted_and_a_cell_holds_one_scorer_version(rules_site):
    _, results, _ = rules_site
    annotated, counted = _counted(results)
    assert set(counted["run_id"]).isdisjoint(RULE_RUNS)
    for hw, frame in counted.groupby("hw"):
        assert frame["scorer_version"].nunique() == 1, hw  # one version per board, so per cell
        assert (frame["run_reasons"] == "").all()
    solutions = annotated[annotated["row_kind"] != "reference"]
    reasons = dict(zip(solutions["run_id"], solutions["reason"]))
    assert reasons["e2e-fake"].startswith("harness test")
    assert "dirty" in reasons["rule-dirty"] and "audits=false" in reasons["rule-noaudit"]
    assert reasons["rule-head"].startswith("scorer commit not recorded")
    assert "scorer version 0ed3d8f" in reasons["rule-old"] and "shapes=visible" in reasons["rule-visible"]


def test_the_fake_agent_is_never_ranked_best_or_plotted(rules_site):
    _, _, out = rules_site
    for page in ["index.html", "board/h100_sxm.html", "board/h200_sxm.html"]:
        html = (out / page).read_text()
        ranking = html.split('id="board"', 1)[1].split("</table>", 1)[0] if 'id="board"' in html else ""
        assert "fake-house" not in ranking and "e2e-fake" not in ranking
    problem = (out / "problem" / "fp8_gemm.html").read_text()
    best = problem.split("<h3>Best runs</h3>", 1)[1].split("</table>", 1)[0]
    assert not any(run in best for run in RULE_RUNS)
    for figure_id in re.findall(r'<script type="application/json" id="(fig-[^"]+)"', problem):
        figure = json.loads(problem.split(f'id="{figure_id}">', 1)[1].split("</script>", 1)[0])
        names = {trace.get("name") for trace in figure["data"]}
        assert not any("fake" in str(name) or "harness test" in str(name) for name in names), figure_id
    # Agent A's bars are the medians of its counted passing runs per shape: 0.9x and 0.8x the template's
    # fractions (run-a3 failed); its five excluded runs (1.4-1.45x) would pull them up.
    shapes = json.loads(problem.split('id="fig-shapes-h100_sxm">', 1)[1].split("</script>", 1)[0])
    agent = next(t for t in shapes["data"] if t["name"] == "claude-code · opus-test · high")
    scored = [s for s in template()["systems"][0]["shapes"] if s["shape_set"] in ("visible", "held_out")]
    expected = {s["name"]: 0.85 * s["fraction"] for s in scored}
    assert dict(zip(agent["x"], agent["y"])) == pytest.approx({x: expected[x] for x in agent["x"]})
    tests_page = (out / "harness-tests.html").read_text()
    assert "e2e-fake" in tests_page and "claude · fake-house · default (harness test)" in tests_page


def test_every_unranked_run_is_listed_with_its_reason_and_the_board_states_its_version(rules_site):
    _, _, out = rules_site
    board = (out / "board" / "h100_sxm.html").read_text()
    assert "Scorer version a1b2c3d" in board and "2026-11-22 03:42 to 2026-11-22 04:00 UTC" in board
    assert "audits=false" in board and 'href="../board/h100_sxm-other.html"' in board
    other = (out / "board" / "h100_sxm-other.html").read_text()
    for run_id in (*RULE_RUNS, "run-b2"):  # run-b2: kept off by its reward_hack verdict
        row = other.split(f">{run_id}</a>", 1)[1].split("</tr>", 1)[0]
        assert row.strip(), run_id
    assert "verdict reward_hack" in other


def test_the_fake_run_keeps_its_transcript_found_in_its_run_folder_across_rebuilds(rules_site):
    from board import BuildConfig, build

    _, results, out = rules_site
    page = (out / "run" / "e2e-fake.html").read_text()
    assert 'href="e2e-fake.transcript.html"' in page and "FAKE-SOLUTION" in page
    build(BuildConfig(results=str(results), out=str(out)), log=lambda line: None)
    assert (out / "run" / "e2e-fake.transcript.html").is_file()


def test_the_committed_results_rank_one_clean_audited_scorer_version(tmp_path):
    from board.frame import build_frames
    from board.load import load_runs
    from board.problem_info import load_problems

    problems, _ = load_problems(None)
    annotated, counted = _counted_from(load_runs(REPO / "results", set(problems)).runs)
    assert not counted.empty
    assert counted["scorer_version"].nunique() == 1 and (counted["run_reasons"] == "").all()
    assert not counted["row_kind"].isin(["test", "rescored", "solution"]).any()
    fake = annotated[annotated["row_label"].str.contains("fake-house")]
    assert not fake.empty and (fake["reason"] != "").all()


def _counted_from(runs):
    from board.frame import build_frames
    from board.rank import annotate, board_trials

    trials, _ = build_frames(runs)
    annotated = annotate(trials)
    return annotated, board_trials(annotated)
