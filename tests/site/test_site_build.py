"""The build on fixture results: boards, pages, downloads, bad files, strict mode, incremental rebuilds."""

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.site.fixtures import REPO, malformed_files

HOUSE = 0.5279183125394664  # the committed result's headline fraction
LIBRARY = 0.6183115002619861


def board(out: Path, hw: str = "h100_sxm") -> str:
    return (out / "board" / f"{hw}.html").read_text()


def test_every_page_type_is_written(built):
    report, out, _ = built
    assert report.runs == 7 and report.issues == () and report.cpu_skipped == 1
    for rel in ["index.html", "board/h100_sxm.html", "board/h200_sxm.html", "problem/fp8_gemm.html",
                "problems.html", "agents.html", "agent/agent-claude-code--opus-test--high.html", "agent/house.html",
                "agent/ref-library.html", "run/run-a1.html", "run/run-a1.transcript.html", "methodology.html",
                "downloads.html", "downloads/results.json", "downloads/results.csv", "assets/plotly.min.js"]:
        assert (out / rel).is_file(), rel
    assert not (out / "run" / "run-cpu.html").exists()  # CPU-profile smoke tests are left out


def test_board_ranks_the_median_with_failures_as_zero_and_flagged_runs_off(built):
    _, out, _ = built
    html = board(out)
    assert html.index("vendor library") < html.index("house kernels") < html.index("claude-code · opus-test · high")
    assert f"{HOUSE * 0.8:.3f}" in html  # median of 0.9x, 0.8x and a failure (0): the 0.8x run
    assert "2/3 passed" in html and "×3" in html
    assert "INTEGRITY" in html and "reward hack" in html and "+1 off ranking" in html
    assert f'<span class="v">{HOUSE * 1.5:.3f}' not in html  # the flagged run's better score is not the cell
    assert f"passed {HOUSE * 1.5:.3f} [reward_hack]" in html  # but it stays visible (hover)


def test_board_numbers_from_the_tables(results_tree):
    from board.frame import build_frames
    from board.load import load_runs
    from board.rank import build_boards

    loaded = load_runs(results_tree, {"fp8_gemm"})
    trials, _ = build_frames(loaded.runs)
    h100 = {b.hw: b for b in build_boards(trials)}["h100_sxm"]
    rows = {r.key: r for r in h100.rows}
    agent = rows["agent:claude-code/opus-test/high"]
    assert agent.aggregate == pytest.approx(HOUSE * 0.8) and agent.passes == 1 and agent.rank == 3
    assert agent.cells[0].low == 0.0 and agent.cells[0].high == pytest.approx(HOUSE * 0.9)
    assert agent.cells[0].run_id == "run-a2"  # the median run is the one the cell links to
    codex = rows["agent:codex/gpt-test/medium"]
    assert codex.aggregate == 0.0 and codex.cells[0].label == "INTEGRITY" and codex.cells[0].flagged == 1
    assert rows["ref:library"].cells[0].trials == 6 and rows["ref:library"].aggregate == pytest.approx(LIBRARY)
    assert [r.rank for r in h100.rows] == [1, 2, 3, 4, 5, 6]


def test_a_missing_problem_counts_zero_and_an_all_flagged_row_is_unranked():
    import pandas as pd

    from board.frame import TRIAL_COLUMNS
    from board.rank import build_boards

    base = dict(hw="h", hw_label="H", created="t", row_kind="agent", system="s", visible_fraction=None,
                held_out_fraction=None, verdict="", wall_s=None, solution_sha="", complete=True,
                scorer_commit="abcdef0", scorer_version="abcdef0", run_reasons="")
    records = [dict(base, problem="p1", run_id="r1", row_key="a", row_label="A", slug="a", status="passed",
                    category="pass", fraction=0.6, flagged=False),
               dict(base, problem="p2", run_id="r2", row_key="b", row_label="B", slug="b", status="passed",
                    category="pass", fraction=0.5, flagged=False),
               dict(base, problem="p1", run_id="r3", row_key="b", row_label="B", slug="b", status="timeout",
                    category="err", fraction=0.0, flagged=False),
               dict(base, problem="p1", run_id="r4", row_key="c", row_label="C", slug="c", status="passed",
                    category="pass", fraction=0.9, flagged=True, verdict="reward_hack")]
    (result,) = build_boards(pd.DataFrame(records, columns=TRIAL_COLUMNS))
    rows = {r.key: r for r in result.rows}
    assert rows["a"].aggregate == pytest.approx(0.3) and rows["a"].passes == 1  # p2 missing: zero
    assert rows["b"].aggregate == pytest.approx(0.25) and rows["b"].cells[0].label == "ERR"
    assert rows["c"].aggregate is None and rows["c"].rank is None and rows["c"].cells[0].label == "flagged"
    assert [r.key for r in result.rows] == ["a", "b", "c"]


def test_run_page_shows_shapes_audits_solution_transcript_and_verdict(built):
    _, out, _ = built
    page = (out / "run" / "run-a1.html").read_text()
    assert "square_8192" in page and "cuda" not in page.split("<main>")[0]
    assert "tensor_precision" in page and "AGENT-A-SOLUTION" in page  # the run directory's solution.py
    assert 'href="run-a1.transcript.html"' in page and "120,000" in page and "$3.50" in page
    assert "interesting" in page and "&lt;b&gt;tidy&lt;/b&gt;" in page  # verdict text is escaped
    assert "code path: CUDA kernel (the solution&#39;s own &lt;b&gt;word&lt;/b&gt;)" in page  # library_version, escaped
    flagged = (out / "run" / "run-b2.html").read_text()
    assert "kept off the ranking" in flagged and "CACHE = {}" in flagged
    house = (out / "run" / "20261122T034242Z-fp8_gemm-house-a7e607.html").read_text()
    assert "_fp8_gemm_kernel" in house  # the house kernel's source, its sha256 matching the result's
    transcript = (out / "run" / "run-a1.transcript.html").read_text()
    assert "run-a1: transcript" in transcript and "x.mul(2)" in transcript  # the viewer's page of the fixture


def test_problem_page_has_formulas_shapes_tolerances_and_figures(built):
    _, out, _ = built
    page = (out / "problem" / "fp8_gemm.html").read_text()
    text_only = re.sub(r"<[^>]+>", "", page)
    assert "return 2 * shape[&quot;M&quot;]" in text_only or 'return 2 * shape["M"]' in text_only
    for text in ("decode_m64_7168", "0.016", "_scaled_mm", "What to compute",
                 "fig-roofline-h100_sxm", "fig-shapes-h200_sxm", "compute roof"):
        assert text in page, text
    assert "def flops" in text_only and "def bytes_moved" in text_only
    figure = json.loads(page.split('id="fig-roofline-h100_sxm">', 1)[1].split("</script>", 1)[0])
    names = [trace["name"] for trace in figure["data"]]
    assert names[0] == "roofline" and "house kernels" in names and "vendor library" in names
    assert figure["layout"]["xaxis"]["type"] == "log" and figure["layout"]["yaxis"]["type"] == "log"
    roof = figure["data"][0]
    assert max(roof["y"]) == pytest.approx(1978.9)  # the compute roof is the fp8 peak of the H100 row


def test_methodology_is_generated_from_the_scorer(built):
    from dataclasses import fields

    from scoring.config import RunConfig

    _, out, _ = built
    page = (out / "methodology.html").read_text()
    for f in fields(RunConfig):
        assert f"<code>{f.name}</code>" in page, f.name
    assert "launch gate" in page and "target_rse" in page
    assert "range profiler" in page and "AuditReservoir" in page  # scoring/audit.py's docstring, rendered
    assert "h100_sxm" in page and "1978.9" in page and "geometric mean" in page.lower()


def test_downloads_hold_every_run_and_shape(built):
    _, out, _ = built
    document = json.loads((out / "downloads" / "results.json").read_text())
    assert document["schema"] == "ceiling.site-results/1" and len(document["runs"]) == 7
    by_id = {r["run_id"]: r for r in document["runs"]}
    assert by_id["run-b2"]["verdict"] == "reward_hack" and by_id["run-a1"]["agent"]["model"] == "opus-test"
    with (out / "downloads" / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 7 * 4 * 10 - 10 * 0  # 7 runs x 4 systems x 10 shapes
    assert {r["verdict"] for r in rows if r["run_id"] == "run-b2" and r["system"] != "eager"} >= {"reward_hack"}


def test_malformed_files_are_reported_with_file_and_field_and_skipped(tmp_path):
    from board import BuildConfig, build

    results = tmp_path / "results"
    (results / "h100_sxm").mkdir(parents=True)
    shutil.copy(REPO / "results" / "h100_sxm" / "20261122T034242Z-fp8_gemm-house-a7e607.json", results / "h100_sxm")
    expected = malformed_files(results)
    lines: list[str] = []
    report = build(BuildConfig(results=str(results), out=str(tmp_path / "site")), log=lines.append)
    assert report.runs == 1
    for name, field in expected.items():
        found = [i for i in report.issues if Path(i.file).name == name]
        assert found, name
        assert any(i.field == field for i in found), (name, [str(i) for i in found])
        assert all(i.fix for i in found)
    assert any("no_such_problem" in line and "problem.name" in line for line in lines)


def _cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "board", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_cli_reports_bad_files_without_traceback_and_strict_fails(tmp_path):
    results = tmp_path / "results"
    (results / "h100_sxm").mkdir(parents=True)
    shutil.copy(REPO / "results" / "h100_sxm" / "20261122T034242Z-fp8_gemm-house-a7e607.json", results / "h100_sxm")
    malformed_files(results)
    lenient = _cli(f"results={results}", f"out={tmp_path / 'a'}", "transcripts=false")
    assert lenient.returncode == 0, lenient.stderr
    assert "Traceback" not in lenient.stderr and "bad-schema.json: field 'schema'" in lenient.stderr
    strict = _cli(f"results={results}", f"out={tmp_path / 'b'}", "strict=true")
    assert strict.returncode == 1 and "Traceback" not in strict.stderr and "strict=true" in strict.stderr
    assert not (tmp_path / "b" / "index.html").exists() and not (tmp_path / "b" / "run").exists()


def test_cli_help_and_usage_errors():
    shown = _cli("help")
    assert shown.returncode == 0
    for key in ("results", "out", "strict", "cpu", "transcripts", "incremental", "jobs"):
        assert f"  {key} " in shown.stdout
    wrong = _cli("stirct=true")
    assert wrong.returncode == 2 and "did you mean 'strict'" in wrong.stderr and "Traceback" not in wrong.stderr
    missing = _cli("results=/no/such/folder", "out=/tmp/ceiling-site-never")
    assert missing.returncode == 2 and "results=/no/such/folder: no such folder" in missing.stderr


def test_incremental_rebuild_keeps_unchanged_pages_and_prunes_gone_runs(results_tree, tmp_path):
    from board import BuildConfig, build

    results = tmp_path / "results"
    shutil.copytree(results_tree, results)
    config = BuildConfig(results=str(results), out=str(tmp_path / "site"))
    first = build(config, log=lambda line: None)
    again = build(config, log=lambda line: None)
    assert first.run_pages_rendered == 7 and again.run_pages_rendered == 0 and again.run_pages_kept == 7
    (results / "annotations" / "run-a2.toml").write_text('run_id = "run-a2"\nverdict = "bug"\nsummary = "x"\n')
    (results / "h100_sxm" / "run-a3.json").unlink()
    third = build(config, log=lambda line: None)
    assert third.run_pages_rendered == 1 and third.runs == 6
    assert not (tmp_path / "site" / "run" / "run-a3.html").exists()
    assert "kept off the ranking" in (tmp_path / "site" / "run" / "run-a2.html").read_text()
    assert "run-a3" not in board(tmp_path / "site")


def test_cpu_results_are_included_only_when_asked(results_tree, tmp_path):
    from board import BuildConfig, build

    report = build(BuildConfig(results=str(results_tree), out=str(tmp_path / "s"), cpu=True, transcripts=False),
                   log=lambda line: None)
    assert report.cpu_skipped == 0 and report.runs == 8 and (tmp_path / "s" / "run" / "run-cpu.html").exists()


def test_the_committed_results_make_a_real_leaderboard(tmp_path):
    from board import BuildConfig, build

    report = build(BuildConfig(results=str(REPO / "results"), out=str(tmp_path / "site"), strict=True),
                   log=lambda line: None)
    assert report.runs >= 2 and report.issues == ()
    html = board(tmp_path / "site")
    for label in ("house kernels", "vendor library", "eager PyTorch", "torch.compile"):
        assert label in html


def test_the_site_and_viewer_do_not_import_torch():
    code = ("import sys, viewer, board, board.builder, board.cli; "
            "assert 'torch' not in sys.modules, 'torch imported'; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_viewer_does_not_import_the_site_generator():
    """board/ renders transcript pages through the viewer; the viewer stands alone (no import of board)."""
    import ast

    importers = []
    for path in sorted((REPO / "viewer").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if any(n == "board" or n.startswith("board.") for n in names):
                importers.append(str(path.relative_to(REPO)))
    assert not importers, f"viewer modules import board: {importers}"


def test_out_folder_must_not_be_a_source_folder(tmp_path):
    from board import BuildConfig, build
    from board.issues import BuildError

    with pytest.raises(BuildError, match="source folder"):
        build(BuildConfig(results=str(REPO / "results"), out=str(REPO)), log=lambda line: None)
