"""The built site in Debian's Chromium through Playwright, every non-file request blocked: each page
type loads from file:// with no console error and no outside request, sorting works, Plotly draws,
and links between leaderboard, problem, agent and run pages resolve. Screenshots: test-artifacts/site/."""

from pathlib import Path

import pytest

from tests.offline_browser import offline_chromium

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "site"
PAGES = {
    "leaderboard": "index.html",
    "leaderboard_h200": "board/h200_sxm.html",
    "problem": "problem/fp8_gemm.html",
    "agent": "agent/agent-claude-code--opus-test--high.html",
    "reference": "agent/ref-library.html",
    "run": "run/run-a1.html",
    "run_flagged": "run/run-b2.html",
    "run_house": "run/20261122T034242Z-fp8_gemm-house-a7e607.html",
    "transcript": "run/run-a1.transcript.html",
    "methodology": "methodology.html",
    "problems": "problems.html",
    "agents": "agents.html",
    "downloads": "downloads.html",
}

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    with offline_chromium("site-chromium-") as context:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        yield context


def open_page(browser, path: Path):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors


@pytest.mark.parametrize("name", list(PAGES))
def test_page_loads_clean_from_file_with_no_outside_request(browser, built, name):
    _, out, _ = built
    before = len(browser.outside_requests)
    page, errors = open_page(browser, out / PAGES[name])
    assert page.locator("h1").first.is_visible()
    if name == "problem":
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length === 4")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    page.close()
    assert errors == []
    assert browser.outside_requests[before:] == []


def test_plots_render_with_data(browser, built):
    _, out, _ = built
    page, errors = open_page(browser, out / PAGES["problem"])
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length === 4")
    traces = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map(d => d.data.length)")
    assert len(traces) == 4 and all(n >= 2 for n in traces)
    assert page.locator("#plot-roofline-h100_sxm .scatterlayer .point").count() >= 7 * 2  # shapes x systems
    assert page.locator("#plot-shapes-h100_sxm .bars .point").count() >= 7
    page.close()
    assert errors == []


def test_sorting_the_leaderboard_by_any_column(browser, built):
    _, out, _ = built
    page, errors = open_page(browser, out / PAGES["leaderboard"])

    def systems():
        return page.locator("#board tbody tr td:nth-child(2)").all_text_contents()

    ranked = systems()
    assert ranked[0] == "vendor library"
    page.click("#board thead th:has-text('system')")
    assert systems() == sorted(ranked, key=str.lower)
    page.click("#board thead th:has-text('system')")
    assert systems() == sorted(ranked, key=str.lower, reverse=True)
    page.click("#board thead th:has-text('fp8_gemm')")  # numeric: highest first
    values = page.locator("#board tbody tr td:nth-child(6)").evaluate_all("cells => cells.map(c => c.dataset.value)")
    numbers = [float(v) for v in values if v]
    assert numbers == sorted(numbers, reverse=True) and systems()[0] == "vendor library"
    page.click("#board thead th:has-text('fp8_gemm')")
    values = page.locator("#board tbody tr td:nth-child(6)").evaluate_all("cells => cells.map(c => c.dataset.value)")
    assert [float(v) for v in values if v] == sorted(numbers)
    assert page.locator("#board thead th:has-text('fp8_gemm')").get_attribute("aria-sort") == "ascending"
    page.screenshot(path=str(ARTIFACTS / "leaderboard_sorted.png"), full_page=True)
    page.close()
    assert errors == []


def test_links_between_leaderboard_problem_agent_and_run_resolve(browser, built):
    _, out, _ = built
    page, errors = open_page(browser, out / PAGES["leaderboard"])
    page.click("#board tbody tr:has-text('opus-test') td.cell a")  # the cell: its median run
    assert page.url.endswith("/run/run-a2.html") and "Run run-a2" in page.locator("h1").text_content()
    page.click("main a:has-text('claude-code · opus-test · high') >> nth=0")
    assert page.url.endswith("/agent/agent-claude-code--opus-test--high.html")
    page.click("#runs a:has-text('run-a1')")
    page.click("#transcript-link")
    assert page.url.endswith("/run/run-a1.transcript.html") and page.locator(".ev").count() > 0
    page.go_back()
    page.click("main a:has-text('FP8 GEMM')")
    assert page.url.endswith("/problem/fp8_gemm.html")
    page.click("main table a:has-text('house kernels') >> nth=0")
    assert page.url.endswith("/agent/house.html")
    page.click("header nav a:has-text('Leaderboard')")
    assert page.url.endswith("/index.html")
    page.click(".tabs a:has-text('H200_SXM')")
    assert page.url.endswith("/board/h200_sxm.html")
    page.close()
    assert errors == []
    # every relative link of every page points at a file that exists
    for html in out.rglob("*.html"):
        for href in _hrefs(html.read_text()):
            if href.startswith(("#", "http:", "https:", "mailto:")):
                continue
            target = (html.parent / href.split("#", 1)[0]).resolve()
            assert target.exists(), f"{html.relative_to(out)} links to missing {href}"


def _hrefs(text: str) -> list[str]:
    import re

    return re.findall(r'(?:href|src)="([^"]+)"', text)


@pytest.fixture(scope="module")
def rescored_site(tmp_path_factory):
    from board import BuildConfig, build
    from tests.site.fixtures import rescored_tree

    root = tmp_path_factory.mktemp("rescored-browser")
    build(BuildConfig(results=str(rescored_tree(root / "results")), out=str(root / "site"), transcripts=False),
          log=lambda line: None)
    return root / "site"


@pytest.mark.parametrize("rel", ["board/h100_sxm.html", "run/rs-unseen.html", "run/run-c1.html",
                                 "problem/fp8_gemm.html", "agent/rescored-codex--gpt-5.5--xhigh.html"])
def test_rescored_pages_load_clean_and_the_badge_names_the_published_file(browser, rescored_site, rel):
    before = len(browser.outside_requests)
    page, errors = open_page(browser, rescored_site / rel)
    if rel.startswith("problem"):
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 2")
    name = rel.replace("/", "_").removesuffix(".html")
    page.screenshot(path=str(ARTIFACTS / f"rescored_{name}.png"), full_page=True)
    badges = page.locator("a.badge.rescored")
    if rel != "run/run-c1.html":  # one of ours: no provenance badge
        assert badges.count() >= 1 and badges.first.is_visible()
        assert badges.first.get_attribute("href").startswith("https://github.com/Infatoshi/kernelbench.com/blob/")
    else:
        assert badges.count() == 0 and page.locator("#failure").is_visible()
    page.close()
    assert errors == [] and browser.outside_requests[before:] == []
