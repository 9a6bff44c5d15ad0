"""The run index (every run, filtered in the browser), one page per model across harnesses and sources, and the
score-against-effort figures."""

import json

import pytest

from tests.offline_browser import offline_chromium


@pytest.fixture(scope="module")
def index_site(tmp_path_factory):
    from board import BuildConfig, build
    from tests.site.fixtures import rescored_tree

    root = tmp_path_factory.mktemp("run-index")
    report = build(BuildConfig(results=str(rescored_tree(root / "results")), out=str(root / "site")),
                   log=lambda line: None)
    return report, root / "site"


def _data(out):
    html = (out / "runs.html").read_text()
    return json.loads(html.split('id="run-data">', 1)[1].split("</script>", 1)[0].replace("<\\/", "</"))


def test_the_run_index_holds_every_run_once_with_its_ranking(index_site):
    report, out = index_site
    data = _data(out)
    rows = [dict(zip(data["columns"], row)) for row in data["rows"]]
    assert len(rows) == report.runs == len({r["run_id"] for r in rows})
    by_id = {r["run_id"]: r for r in rows}
    assert by_id["run-a2"]["ranked"] == "ranked" and by_id["run-a2"]["model"] == "opus-test"
    assert by_id["rs-pass"]["ranked"].startswith("re-scored") and by_id["demo-bf16"]["kind"] == "solution"
    assert by_id["run-b2"]["ranked"].startswith("verdict reward_hack")
    assert by_id["run-a1"]["tokens"] == 120000 and by_id["run-a1"]["cost_usd"] == 3.5


def test_a_model_page_lists_its_runs_across_harnesses_and_sources(index_site):
    _, out = index_site
    page = (out / "model" / "model-opus-test.html").read_text()
    for run_id in ("run-a1", "run-a2", "run-a3", "run-h200", "rs-same-as-ours"):
        assert f">{run_id}</a>" in page, run_id
    assert "our harness" in page and "re-scored" in page
    assert 'href="model/model-opus-test.html"' in (out / "models.html").read_text()


def test_score_against_tokens_cost_and_time_plots_the_runs_that_record_them(index_site):
    _, out = index_site
    html = (out / "models.html").read_text()
    for key in ("agent_s", "tokens", "cost_usd"):
        figure = json.loads(html.split(f'id="fig-effort-{key}">', 1)[1].split("</script>", 1)[0].replace("<\\/", "</"))
        points = {text.split(" · ")[0]: (x, y) for trace in figure["data"] for text, x, y in
                  zip(trace["text"], trace["x"], trace["y"])}
        assert {"run-a1", "run-a2", "run-a3"} <= set(points)  # AGENT_A states tokens, cost and wall time
        assert points["run-a3"][1] == 0.0  # a failed run scores 0
        assert "(" in figure["layout"]["xaxis"]["title"]["text"] and "score" in figure["layout"]["yaxis"]["title"]["text"]


@pytest.mark.browser
def test_filters_narrow_the_index_in_the_browser_and_live_in_the_address(index_site):
    _, out = index_site
    total = len(_data(out)["rows"])
    with offline_chromium("run-index-") as browser:
        page = browser.new_page()
        errors = []
        page.on("console", lambda message: errors.append(message.text) if message.type in ("error", "warning") else None)
        page.goto((out / "runs.html").as_uri())
        assert page.locator("#run-index tbody tr").count() == total
        page.select_option("select[name=model]", "opus-test")
        assert page.locator("#run-index tbody tr").count() == 5 and "#model=opus-test" in page.url
        page.select_option("select[name=ranked]", "ranked")
        ranked = page.locator("#run-index tbody tr td:nth-child(1)").all_text_contents()
        assert set(ranked) == {"run-a1", "run-a2", "run-a3", "run-h200"}
        page.fill("input[name=q]", "a2")
        assert page.locator("#run-index tbody tr td:nth-child(1)").all_text_contents() == ["run-a2"]
        page.goto((out / "runs.html").as_uri() + "#kind=rescored")  # a shared link opens filtered
        page.reload()
        kinds = page.locator("#run-index tbody tr td:nth-child(5)").all_text_contents()
        assert kinds and all("(re-scored)" in k for k in kinds)
        page.goto((out / "runs.html").as_uri())
        page.click("#run-index thead th:has-text('score')")
        scores = [float(s) for s in page.locator("#run-index tbody tr td:nth-child(7)").all_text_contents()]
        assert scores == sorted(scores, reverse=True)
        page.goto((out / "models.html").as_uri())
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === 3")
        page.close()
        assert errors == [] and browser.outside_requests == []
