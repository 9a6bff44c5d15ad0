"""What the pages say is what the code does: the footer's formula, the file counts, errors as one line with
the full text collapsed, no machine's absolute path in view, and a hardware with nothing ranked explained."""

import re
from html import unescape

import pytest

from tests.site.fixtures import AGENT_A, make_failed, make_result, write

TRACEBACK = ("ImportError: cannot import name 'tma' from 'triton'\n"
             "Traceback (most recent call last):\n"
             '  File "/work/main/scoring/worker.py", line 304, in main\n'
             "    import_ms = runner.import_solution()\n"
             '  File "/usr/lib/python3/dist-packages/triton/__init__.py", line 9, in <module>\n'
             "ImportError: cannot import name 'tma' from 'triton'\n")
COMMAND = ("python -m scoring.run problem=fp8_gemm solution=/tmp/ceiling-score-6f89ishp/solution.py "
           "out=/root/out/results")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from board import BuildConfig, build

    root = tmp_path_factory.mktemp("truthful")
    results = root / "results"
    write(results / "h100_sxm" / "ok.json", make_result("ok"))
    crashed = make_failed("crashed", "build_or_import", agent=AGENT_A, detail=TRACEBACK)
    crashed["command"] = COMMAND
    crashed["systems"][0]["import_status"], crashed["systems"][0]["import_detail"] = "error", TRACEBACK
    write(results / "h100_sxm" / "crashed.json", crashed)
    dirty = make_result("h200-dirty", hw="h200_sxm")
    dirty["ceiling"]["dirty"] = True
    write(results / "h200_sxm" / "h200-dirty.json", dirty)
    report = build(BuildConfig(results=str(results), out=str(root / "site"), transcripts=False), log=lambda line: None)
    return report, root / "site"


def visible_text(html: str) -> str:
    """The page's text as a reader sees it: no scripts, no collapsed <details> bodies, no highlighted code."""
    body = html.split("<body>", 1)[1]
    body = re.sub(r"<script.*?</script>", "", body, flags=re.S)
    body = re.sub(r"<details>\s*<summary[^>]*>(.*?)</summary>.*?</details>", r"\1", body, flags=re.S)
    body = re.sub(r'<details class="shape-errors">\s*<summary[^>]*>(.*?)</summary>.*?</details>', r"\1", body, flags=re.S)
    body = re.sub(r'<div class="hl">.*?</div>', "", body, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", body))


def test_the_footer_states_the_formula_the_scorer_computes_and_true_counts(site):
    report, out = site
    index = (out / "index.html").read_text()
    footer = unescape(re.sub(r"<[^>]+>", "", index.split("<footer>", 1)[1].split("</footer>", 1)[0]))
    assert "roofline time, max(FLOPs / peak FLOP/s, bytes moved / peak bandwidth)" in footer
    assert "over its measured median time" in footer and "achieved time over roofline time" not in footer
    assert f"from {report.runs} result files" in footer and report.runs == 3
    run_footer = (out / "run" / "ok.html").read_text().split("<footer>", 1)[1]
    assert "from this run's result file" in run_footer and "from 0 result" not in run_footer


def test_the_footer_matches_scoring_roofline():
    """The footer's formula is the one scoring/roofline.py computes: floor over measured time."""
    from scoring.roofline import roofline_point

    measured = roofline_point(flops=2_000_000, bytes_moved=1_000, measured_ms=0.004, peak_tflops=1.0, peak_gbps=1.0)
    roofline_ms = max(2_000_000 / 1e12, 1_000 / 1e9) * 1e3
    assert measured.fraction == pytest.approx(roofline_ms / 0.004)


def test_an_error_is_one_line_and_its_traceback_collapsed_with_relative_paths(site):
    _, out = site
    html = (out / "run" / "crashed.html").read_text()
    shown = visible_text(html)
    assert "Traceback" not in shown and "cannot import name 'tma' from 'triton'" in shown
    for machine_path in ("/work/main", "/tmp/ceiling-score", "/root/out", "/usr/lib"):
        assert machine_path not in html, machine_path  # not even in a collapsed block or an attribute
    assert "scoring/worker.py" in html and "triton/__init__.py" in html  # the full text, paths made relative
    assert "solution=…/solution.py" in unescape(html) and "out=…/results" in unescape(html)


def test_a_hardware_with_nothing_ranked_says_so(site):
    _, out = site
    h200 = (out / "board" / "h200_sxm.html").read_text()
    assert 'id="nothing-ranked"' in h200 and 'id="board"' not in h200
    assert "none of its 1 run meets the ranking rules" in visible_text(h200)
    index = visible_text((out / "index.html").read_text())
    assert re.search(r"H200_SXM\s*\(1 run, none ranked\)", index)


def test_an_audited_shape_given_by_its_parameters_reads_as_parameters_not_a_python_dict():
    from board.run_tables import audit_table

    html = str(audit_table([{"id": "tensor_precision", "classes": ["X20"], "expect": "fp8",
                             "shape": {"M": 2048, "N": 2048, "K": 2048}, "outcome": "passed"}]))
    assert "M=2048 N=2048 K=2048" in html and "{" not in html.split("<details>", 1)[0]
