"""Runs re-scored from kernelbench.com, failure classes and known-wrong demonstrations on the site.

A re-scored run is its own row kind, listed apart from the ranking (never merged with our agent of the
same harness, model and effort), with a badge linking to the exact published file, their fraction beside
ours and their verdict; a run that did not pass shows its failure class on the board and its run page;
known-wrong demonstrations are on their problem's page, never in a ranking table.
"""

import html
import json
import re

import pytest

from scoring.failure_class import LABELS
from tests.site.fixtures import AGENT_A, CLASS_STATUS, COMMIT, rescored_tree

PUBLISHED = "https://github.com/Infatoshi/kernelbench.com/blob/" + COMMIT + "/public/runs/h100/"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from board import BuildConfig, build

    root = tmp_path_factory.mktemp("rescored")
    results = rescored_tree(root / "results")
    lines: list[str] = []
    report = build(BuildConfig(results=str(results), out=str(root / "site"), transcripts=False), log=lines.append)
    assert report.issues == (), [str(i) for i in report.issues]
    return results, root / "site"


def main_ranking(page: str) -> str:
    """The main ranking table of a board page."""
    return page.split('id="board"', 1)[1].split("</table>", 1)[0]


def rescored_section(page: str) -> str:
    return page.split('<h2 id="rescored">', 1)[1].split("<h2", 1)[0]


def test_rescored_rows_are_their_own_kind_keyed_apart_from_our_agents():
    from pathlib import Path

    from board.frame import row_identity
    from board.load import Run
    from tests.scoring.corrupted_results import RESCORED_AGENT

    data = {"agent": RESCORED_AGENT, "systems": [{"role": "solution", "name": "solution", "path": "solution.py"}]}
    key, kind, label, slug = row_identity(Run(Path("r.json"), data, "d", None, None), 0, data["systems"][0])
    assert (key, kind) == ("rescored:codex/gpt-5.5/xhigh", "rescored")
    assert "re-scored" in label and slug.startswith("rescored-")


def test_a_rescored_row_never_appears_in_the_main_ranking(site):
    _, out = site
    page = (out / "board" / "h100_sxm.html").read_text()
    ranking = main_ranking(page)
    assert "kind-rescored" not in ranking and "rescored:" not in ranking and "re-scored" not in ranking
    assert set(re.findall(r'data-row="([^"]+)"', ranking)) == {
        "agent:claude-code/opus-test/high", "agent:codex/gpt-test/medium", "agent:droid/ours-test/low", "house",
        "ref:eager", "ref:compiled", "ref:library"}
    for row in ranking.split("<tr")[1:]:  # no agent or house cell counts, links to or lists a re-scored run
        if 'data-row="ref:' not in row:
            assert not re.search(r"\brs-", row), row
    section = rescored_section(page)
    assert "Re-scored from kernelbench.com" in page and 'data-row="rescored:codex/gpt-5.5/xhigh"' in section
    assert 'data-row="rescored:claude-code/opus-test/high"' in section  # same harness/model/effort: not merged


def test_the_board_ranks_our_agent_alone_when_a_rescored_run_has_its_identity(site):
    from board.frame import build_frames
    from board.load import load_runs
    from board.rank import build_boards

    results, _ = site
    trials, _ = build_frames(load_runs(results, {"fp8_gemm"}).runs)
    board = {b.hw: b for b in build_boards(trials)}["h100_sxm"]
    rows = {r.key: r for r in board.rows}
    assert {r.kind for r in board.rows} == {"agent", "house", "reference"}
    ours = rows[f"agent:{AGENT_A['harness']}/{AGENT_A['model']}/{AGENT_A['effort']}"]
    assert ours.cells[0].trials == 3 and "rs-same-as-ours" not in ours.cells[0].title  # the 1.6x re-scored run is not in it
    assert {r["run_id"] for r in board.rescored} == {"rs-pass", "rs-theirs-failed", "rs-unseen", "rs-same-as-ours",
                                                      *(f"rs-{c}" for c in CLASS_STATUS)}
    # Reference lines measured in re-scored runs are our measurements: they count for the reference rows.
    assert rows["ref:library"].cells[0].trials == 7 + len(board.rescored) + 2  # + the two demonstrations


def test_badge_links_to_the_exact_published_file_and_both_fractions_show(site):
    _, out = site
    section = rescored_section((out / "board" / "h100_sxm.html").read_text())
    row = section.split('data-row="rescored:codex/gpt-5.5/xhigh"', 1)[1].split("</tr>", 1)[0]
    url = PUBLISHED + "20260618_041754_codex_gpt-5.5_01_fp8_gemm_solution.py.txt"
    assert f'<a class="badge rescored" href="{url}"' in row and "re-scored from kernelbench.com" in row
    assert "theirs: 0.2445 on H100 PCIe (their rubric)" in row and ">clean<" in row
    assert re.search(r">0\.26\d<", row)  # ours: half the house kernel's 0.528
    failed = section.split('data-row="rescored:claude/claude-opus-4-8/default"', 1)[1].split("</tr>", 1)[0]
    assert "theirs: failed on H100 PCIe (their rubric)" in failed and ">passed<" in failed
    hrefs = re.findall(r'href="(https?:[^"]+)"', (out / "board" / "h100_sxm.html").read_text())
    assert hrefs and all(h.startswith(PUBLISHED) for h in hrefs)  # the only outside links: published files


@pytest.mark.parametrize("failure_class", list(CLASS_STATUS))
def test_each_failure_class_shows_on_the_board_and_the_run_page(site, failure_class):
    _, out = site
    label = LABELS[failure_class]
    section = rescored_section((out / "board" / "h100_sxm.html").read_text())
    row = section.split(f'data-row="rescored:opencode/model-{failure_class}/default"', 1)[1].split("</tr>", 1)[0]
    assert f'<span class="fail-class">{html.escape(label)}</span>' in row and "did not pass" in row
    assert "&lt;b&gt;clean&lt;/b&gt;" in row and "<b>clean" not in row  # their verdict text is escaped
    page = (out / "run" / f"rs-{failure_class}.html").read_text()
    assert f"Did not pass: <span class=\"fail-class\">{html.escape(label)}</span>" in page
    assert f"DETAIL-{failure_class}" in page and "only on unseen shapes" not in page
    assert f'href="{PUBLISHED}20260618_0000_{failure_class}_01_fp8_gemm_solution.py.txt"' in page
    assert "theirs: 0.2445 on H100 PCIe (their rubric)" in page and "re-scored from kernelbench.com" in page


def test_unseen_only_failures_say_so(site):
    _, out = site
    page = (out / "run" / "rs-unseen.html").read_text()
    assert "near miss (only on unseen shapes)" in page and "DETAIL-unseen" in page and "odd_m_3000" in page
    assert "their annotation verdict: clean" in page


def test_our_own_runs_show_their_failure_class_in_cell_tooltip_and_run_page(site):
    _, out = site
    ranking = main_ranking((out / "board" / "h100_sxm.html").read_text())
    row = ranking.split('data-row="agent:droid/ours-test/low"', 1)[1].split("</tr>", 1)[0]
    assert '<span class="sub fail-class">near miss (only on unseen shapes)</span>' in row
    assert "run-c1: incorrect (near miss (only on unseen shapes))" in row  # the hover
    page = (out / "run" / "run-c1.html").read_text()
    assert "Did not pass" in page and "near miss (only on unseen shapes)" in page and "DETAIL-c1" in page
    assert "re-scored" not in page  # one of ours: no provenance
    assert "near miss" in (out / "agent" / "agent-droid--ours-test--low.html").read_text()


def test_older_results_without_the_field_show_no_failure_class(site):
    _, out = site
    page = (out / "run" / "run-a3.html").read_text()  # failed, but its result predates `failure`
    assert "Did not pass" not in page and "fail-class" not in page


def test_known_wrong_demonstrations_are_on_the_problem_page_not_ranked(site):
    _, out = site
    for board in (p for p in (out / "board").glob("*.html") if not p.name.endswith("-other.html")):
        ranking = main_ranking(board.read_text())
        assert "kind-solution" not in ranking and "bf16_cast" not in ranking and 'data-row="solution:' not in ranking
    problem = (out / "problem" / "fp8_gemm.html").read_text()
    demos = problem.split('id="demos-h100_sxm"', 1)[1].split("</table>", 1)[0]
    assert "demo-bf16" in demos and "demo-crash" in demos and "runtime error" in demos
    best = problem.split("<h3>Best runs</h3>", 1)[1].split("</table>", 1)[0]
    assert not re.search(r"\b(demo|rs)-", best)  # nor are re-scored runs among our best runs
    rescored = problem.split('id="rescored-h100_sxm"', 1)[1].split("</table>", 1)[0]
    assert "rs-pass" in rescored and "theirs: 0.2445 on H100 PCIe (their rubric)" in rescored
    figure = problem.split('id="fig-shapes-h100_sxm">', 1)[1].split("</script>", 1)[0]
    assert "re-scored" not in figure and "bf16_cast" not in figure


def test_the_committed_known_wrong_runs_are_not_ranked(tmp_path):
    from board import BuildConfig, build
    from tests.site.fixtures import REPO

    build(BuildConfig(results=str(REPO / "results"), out=str(tmp_path / "site"), transcripts=False),
          log=lambda line: None)
    ranking = main_ranking((tmp_path / "site" / "board" / "h100_sxm.html").read_text())
    assert "kind-solution" not in ranking and "solutions/wrong" not in ranking
    assert "bf16_cast" in (tmp_path / "site" / "problem" / "fp8_gemm.html").read_text()


def test_the_rescored_agent_page_lists_runs_apart_with_provenance(site):
    _, out = site
    page = (out / "agent" / "rescored-codex--gpt-5.5--xhigh.html").read_text()
    assert "Re-scored runs" in page and "re-scored from kernelbench.com" in page and "theirs: 0.2445" in page
    assert "<h2>On " not in page  # no ranking row of its own
    agents = (out / "agents.html").read_text()
    assert agents.index("droid · ours-test · low") < agents.index("(re-scored)")  # ours first


def test_downloads_carry_the_failure_field_only_where_the_result_has_it(site):
    import json

    _, out = site
    runs = {r["run_id"]: r for r in json.loads((out / "downloads" / "results.json").read_text())["runs"]}
    assert runs["rs-timeout"]["systems"][0]["failure"]["class"] == "timeout"
    assert runs["rs-pass"]["systems"][0]["failure"] is None
    assert "failure" not in runs["run-a3"]["systems"][0]  # unknown, not "passed"
    assert runs["rs-pass"]["agent"]["published"]["peak_fraction"] == 0.2445


def test_a_link_is_built_only_from_validated_parts():
    from board.provenance import github_url, rescored

    assert github_url("github.com/a/b", COMMIT, "x/y z.txt") is None  # a space: not a plain path
    assert github_url("github.com/a/b", COMMIT, "x/y.txt") == f"https://github.com/a/b/blob/{COMMIT}/x/y.txt"
    for repository, commit, path in [("gitlab.com/a/b", COMMIT, "x"), ("github.com/a/b", "HEAD", "x"),
                                     ("github.com/a/b", COMMIT, "../x"), ("github.com/a/b", COMMIT, "/etc/x"),
                                     ("github.com/a/b/c", COMMIT, "x"), ("github.com/a/b", COMMIT, "x?y=1"),
                                     ("github.com/a/b", COMMIT, 'x"onclick="y')]:
        assert github_url(repository, commit, path) is None, (repository, commit, path)
    assert rescored({"harness": "h", "model": "m"}) is None
    assert rescored({"rescored_from": "x", "source": {"repository": "evil.example/a/b", "commit": COMMIT,
                                                      "path": "x"}, "published": {}}) is None


def test_a_rescored_file_with_a_bad_link_is_skipped_naming_file_and_field(tmp_path):
    from board import BuildConfig, build
    from tests.site.fixtures import make_result, rescored_agent, write

    agent = rescored_agent("codex", "gpt-5.5", "xhigh", "r1")
    agent["source"]["repository"] = "javascript:alert(1)//github.com/a/b"
    bad = write(tmp_path / "results" / "h100_sxm" / "rs-bad.json", make_result("rs-bad", agent=agent))
    fraction = rescored_agent("codex", "gpt-5.5", "xhigh", "r2", peak_fraction="0.24")
    write(tmp_path / "results" / "h100_sxm" / "rs-text.json", make_result("rs-text", agent=fraction))
    lines: list[str] = []
    report = build(BuildConfig(results=str(tmp_path / "results"), out=str(tmp_path / "site"), transcripts=False),
                   log=lines.append)
    assert report.runs == 0 and report.invalid_results == 2
    assert any(line.startswith(f"skipped: {bad}: field 'agent.source.repository'") and "Fix: re-import" in line
               for line in lines)
    assert any("rs-text.json: field 'agent.published.peak_fraction'" in line for line in lines)
    assert not (tmp_path / "site" / "run" / "rs-bad.html").exists()
    assert "javascript" not in "".join(p.read_text() for p in (tmp_path / "site").rglob("*.html"))


def test_a_recorded_headline_is_read_again_from_the_shapes_on_the_run_page(tmp_path):
    """Result files are never edited; a failure recorded as a bare "AssertionError:" (before headlines named where
    an exception without a message was raised) shows the place, read again from its shape's detail."""
    from board import BuildConfig, build
    from tests.scoring.test_failure_class import BARE_ASSERT_DETAIL
    from tests.site.fixtures import good_tree, make_failed, rescored_agent, write

    results = good_tree(tmp_path / "results")
    data = make_failed("rs-assert", "runtime_error", detail=BARE_ASSERT_DETAIL,
                       agent=rescored_agent("claude", "claude-opus-4-8", "default", "20260621_000404_02_kda_cutlass"))
    data["systems"][0]["failure"]["detail"] = "AssertionError:"  # as recorded before
    write(results / "h100_sxm" / "rs-assert.json", data)
    report = build(BuildConfig(results=str(results), out=str(tmp_path / "site"), transcripts=False), log=lambda _: None)
    assert report.issues == (), [str(i) for i in report.issues]
    page = html.unescape((tmp_path / "site" / "run" / "rs-assert.html").read_text())
    assert "AssertionError: at agent_solution.py:189: assert T % BT == 0" in page
    assert json.loads((results / "h100_sxm" / "rs-assert.json").read_text())["systems"][0]["failure"]["detail"] == \
        "AssertionError:"  # the file itself is untouched


# ---- issue 33: the verdicts, their numbers and the legend ----

def test_the_board_shows_the_legend_the_differences_and_the_verdict_counts_of_each_problem(site):
    _, out = site
    page = (out / "board" / "h100_sxm.html").read_text()
    section = rescored_section(page)
    assert 'id="verdict-legend"' in section and 'id="kernelbench-differences"' in section
    # the rules cited: their fp8 tolerance and forbidden list, their peaks, and what near miss means
    assert "tolerance 0.2 abs/rel" in section and "torch._scaled_mm" in section and "2,039 GB/s" in section
    assert "<dt>near miss</dt>" in section and "at most 1 in 10,000" in section
    counts = re.search(r'<p class="verdict-counts">([^<]+)</p>', section).group(1)
    # their passes: every fixture run except rs-theirs-failed; near_miss (within their 0.2) is b, a passing run a
    assert counts.startswith("Verdicts over their ") and "over all " in counts
    assert re.search(r"a [1-9]", counts) and re.search(r"b [1-9]", counts) and re.search(r"c [1-9]", counts)
    row = section.split('data-row="rescored:opencode/model-near_miss/default"', 1)[1].split("</tr>", 1)[0]
    assert 'class="verdict verdict-b"' in row and "b: passes theirs only" in row


def test_a_run_page_shows_its_verdict_with_its_reason_and_their_numbers_beside_ours(site):
    _, out = site
    near = (out / "run" / "rs-near_miss.html").read_text()
    assert 'id="rescored-verdict"' in near and "b: passes theirs only" in near
    assert "within their tolerance (0.2 abs/rel), beyond ours" in near
    numbers = near.split('id="their-numbers"', 1)[1].split("</table>", 1)[0]
    assert "0.2445 of 1,513 fp8 TFLOPS (H100 PCIe)" in numbers and "not converted to their GPU" in numbers
    assert "7052 s wall time" in numbers and "341,185 output tokens" in numbers and "cost not published" in numbers
    nan = (out / "run" / "rs-nan_inf.html").read_text()
    assert "c: wrong inside theirs" in nan and "wrong inside their contract at" in nan
    assert "341,185" in nan.split('class="cards"', 1)[1]  # their tokens, not "not recorded"
    passed = (out / "run" / "rs-pass.html").read_text()
    assert 'class="verdict verdict-a"' in passed


def test_a_file_scored_again_is_judged_by_its_newest_run_alone():
    """kinetic-0715's w4a16 file, first scored without the CUTLASS folder it looks in ("needs re-score"), then
    with it (verdict b), and kinetic-0715[1m]'s moe file, first on an H200, then on an H100: the board's tables
    and counts hold the newest run only, on whichever GPU it ran, as the report does."""
    import pandas as pd

    from board.frame import newest_per_published_file

    runs = pd.DataFrame(
        [
            {"run_id": "old", "hw": "h100_sxm", "created": "2026-11-25T06:42:41Z", "published_sha": "ab12"},
            {"run_id": "new", "hw": "h100_sxm", "created": "2026-11-27T16:41:21Z", "published_sha": "ab12"},
            {"run_id": "other_gpu", "hw": "h200_sxm", "created": "2026-11-26T11:06:49Z", "published_sha": "ab12"},
            {"run_id": "no_file", "hw": "h100_sxm", "created": "2026-11-24T00:00:00Z", "published_sha": ""},
            {"run_id": "no_file_2", "hw": "h100_sxm", "created": "2026-11-24T01:00:00Z", "published_sha": ""},
        ]
    )
    assert sorted(newest_per_published_file(runs)["run_id"]) == ["new", "no_file", "no_file_2"]
    assert newest_per_published_file(runs.iloc[0:0]).empty
