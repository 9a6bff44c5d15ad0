"""Invalid result files never reach the board: each corrupted case is skipped with its field named, the
build counts them in its summary, a strict build fails, and a rejected shape's impossible fraction is not shown."""

import json
import shutil
import subprocess
import sys

import pytest

from tests.scoring.corrupted_results import CASES, REPO, TEMPLATE, write_case
from tests.site.fixtures import AGENT_A, make_result, write

KNOWN = {"fp8_gemm"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_loader_skips_each_corruption_naming_its_field(case, tmp_path):
    from board.load import read_result

    path = write_case(case, tmp_path / "results" / "h100_sxm")
    run, issues, is_cpu = read_result(path, tmp_path / "results", KNOWN, {}, include_cpu=False)
    assert run is None and not is_cpu
    named = [i for i in issues if i.field == case.field]
    assert named and any(case.says in i.problem or case.says in i.fix for i in named), [str(i) for i in issues]
    assert all(i.file == str(path) and i.fix for i in issues)


@pytest.fixture(scope="module")
def corrupted_tree(tmp_path_factory):
    """One good result, an agent's good run, and every corrupted case."""
    results = tmp_path_factory.mktemp("corrupted") / "results"
    hw = results / "h100_sxm"
    hw.mkdir(parents=True)
    shutil.copy(TEMPLATE, hw / TEMPLATE.name)
    write(hw / "run-good.json", make_result("run-good", agent=AGENT_A, scale=0.9))
    for case in CASES:
        write_case(case, hw)
    return results


def test_the_build_shows_none_of_them_and_counts_them(corrupted_tree, tmp_path):
    from board import BuildConfig, build

    out = tmp_path / "site"
    lines: list[str] = []
    report = build(BuildConfig(results=str(corrupted_tree), out=str(out), transcripts=False), log=lines.append)
    assert report.runs == 2 and report.invalid_results == len(CASES)
    assert sorted(p.name for p in (out / "run").iterdir()) == ["20261122T034242Z-fp8_gemm-house-a7e607.html",
                                                                 "run-good.html"]
    shown = json.loads((out / "downloads" / "results.json").read_text())
    assert {r["run_id"] for r in shown["runs"]} == {"20261122T034242Z-fp8_gemm-house-a7e607", "run-good"}
    board = (out / "index.html").read_text()
    assert "corrupt-" not in board and f"{len(CASES)} result file(s) skipped as invalid" in board
    for case in CASES:
        assert any(f"corrupt-{case.name}.json: field '{case.field}'" in line for line in lines), case.name


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "board", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_cli_summary_counts_invalid_files_and_strict_fails(corrupted_tree, tmp_path):
    lenient = _cli(f"results={corrupted_tree}", f"out={tmp_path / 'a'}", "transcripts=false", "quiet=true")
    assert lenient.returncode == 0 and "Traceback" not in lenient.stderr, lenient.stderr
    assert f"{len(CASES)} result file(s) skipped as invalid" in lenient.stdout
    assert "corrupt-score_string_high.json: field 'systems[0].score.fraction'" in lenient.stderr
    strict = _cli(f"results={corrupted_tree}", f"out={tmp_path / 'b'}", "strict=true")
    assert strict.returncode == 1 and "Traceback" not in strict.stderr
    last = strict.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: {len(CASES)} result file(s) invalid") and "strict=true" in last
    assert not (tmp_path / "b" / "index.html").exists()  # strict mode writes nothing


def test_a_rejected_shapes_impossible_fraction_is_never_shown(tmp_path):
    """The scorer records the fraction that got a shape rejected (16.1 here); the site shows '—' instead."""
    from board import BuildConfig, build

    source = REPO / "results" / "corpus" / "h100_sxm" / "20261122T090658Z-fp8_gemm-X10_side_stream-b1d712.json"
    data = json.loads(source.read_text())
    recorded = next(s["fraction"] for s in data["systems"][0]["shapes"] if s["status"] == "rejected")
    results = tmp_path / "results"
    write(results / "h100_sxm" / source.name, data)
    report = build(BuildConfig(results=str(results), out=str(tmp_path / "site"), transcripts=False,
                               strict=True), log=lambda line: None)
    assert report.runs == 1
    page = (tmp_path / "site" / "run" / f"{data['run_id']}.html").read_text()
    # Not a cell's value; only the shape's detail (its hover) quotes it, saying why it was rejected.
    assert f">{recorded:.3f}<" not in page and f'data-value="{recorded}' not in page
    assert f"fraction of peak {recorded:.3f} is above 1.0: physically impossible" in page
    shown = json.loads((tmp_path / "site" / "downloads" / "results.json").read_text())
    shapes = shown["runs"][0]["systems"][0]["shapes"]
    assert [s["fraction"] for s in shapes if s["status"] == "rejected"] == [None]
    assert f"{recorded:.3f}" not in (tmp_path / "site" / "downloads" / "results.csv").read_text()
