"""A reference line reused from an earlier run (scoring/line_cache.py) says so on its run page, linking the
run that measured it; a line measured in its own run says nothing of the kind."""

from tests.site.fixtures import make_result, write


def test_a_reused_line_links_the_run_that_measured_it(tmp_path):
    from board import BuildConfig, build

    results = tmp_path / "results"
    write(results / "h100_sxm" / "run-measured.json", make_result("run-measured"))
    reusing = make_result("run-reusing", created="2026-11-23T04:00:00+00:00")
    assert reusing["systems"][1]["role"] == "eager"
    reusing["systems"][1]["cached_from"] = "h100_sxm/run-measured.json"
    write(results / "h100_sxm" / "run-reusing.json", reusing)
    report = build(BuildConfig(results=str(results), out=str(tmp_path / "site"), transcripts=False),
                   log=lambda line: None)
    assert report.issues == (), [str(issue) for issue in report.issues]
    reused_page = (tmp_path / "site" / "run" / "run-reusing.html").read_text()
    eager = reused_page.split('id="sys-eager"', 1)[1].split("<h2", 1)[0]
    assert 'measured in an earlier run and reused, not timed again: <a href="run-measured.html">' in eager
    assert reused_page.count("cached-line") == 1  # the compiled and library lines were measured in this run
    assert "cached-line" not in (tmp_path / "site" / "run" / "run-measured.html").read_text()
