"""Every page of a build from the committed results, in Chromium at a desktop width (1440 px) and a phone width
(390 px): no page wider than the viewport, no console error, no request outside the site, and no traceback or
machine path in the text a reader sees. Plus the phone navigation: collapsed behind Menu, opened by it."""

import re
from pathlib import Path

import pytest

from tests.offline_browser import offline_chromium
from tests.site.fixtures import REPO

pytestmark = pytest.mark.browser
ARTIFACTS = REPO / "test-artifacts" / "site"
# Absolute paths under the folders a machine's checkout, temporary or output files live in (the committed results
# hold /work/..., /tmp/..., /root/...); a slash-separated list in prose ("mm/linear/bmm") is not one.
MACHINE_PATH = re.compile(r"(?<![\w.:/~-])/(?:tmp|root|home|work|usr|opt|var|mnt|scratch|data|Users|private)/[^\s'\"<>]+")
# What a reader sees: the body's rendered text without highlighted solution source (shown as scored), scripts,
# or the bodies of collapsed <details>, which innerText leaves out.
VISIBLE_TEXT = """() => { const copy = document.body.cloneNode(true);
  copy.querySelectorAll('.hl, script').forEach(e => e.remove());
  document.body.appendChild(copy); const text = copy.innerText; copy.remove(); return text; }"""


@pytest.fixture(scope="module")
def committed_site(tmp_path_factory):
    from board import BuildConfig, build

    out = tmp_path_factory.mktemp("committed") / "site"
    build(BuildConfig(results=str(REPO / "results"), out=str(out)), log=lambda line: None)
    return out


@pytest.fixture(scope="module")
def browser():
    with offline_chromium("site-widths-") as context:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        yield context


def _problems_on(page, width: int, errors: list[str]) -> list[str]:
    problems = []
    plots = page.evaluate("document.querySelectorAll('div.plot').length")
    if plots:
        page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length === {plots}")
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    if scroll_width > width:
        problems.append(f"{scroll_width} px wide")
    if errors:
        problems.append(f"console: {errors[:2]}")
    if not page.url.endswith(".transcript.html"):  # the agent's session, verbatim (the viewer's page)
        text = page.evaluate(VISIBLE_TEXT)
        if "Traceback" in text:
            problems.append("a traceback in view")
        problems += [f"machine path {path}" for path in MACHINE_PATH.findall(text)[:2]]
    return problems


@pytest.mark.parametrize("width", [1440, 390])
def test_every_page_fits_loads_clean_and_shows_no_traceback_or_machine_path(browser, committed_site, width):
    pages = sorted(committed_site.rglob("*.html"))
    assert len(pages) > 300  # every run, its transcript where there is one, and the aggregate pages
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    before = len(browser.outside_requests)
    failures = {}
    for path in pages:
        errors.clear()
        page.goto(path.as_uri())
        found = _problems_on(page, width, errors)
        if found:
            failures[str(path.relative_to(committed_site))] = found
    page.close()
    assert failures == {}
    assert browser.outside_requests[before:] == []


@pytest.mark.parametrize("rel", ["index.html", "problem/fp8_gemm.html", "run/20261126T180845Z-fp8_gemm-house-e80c83.html"])
def test_the_phone_navigation_collapses_and_opens(browser, committed_site, rel):
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto((committed_site / rel).as_uri())
    nav = page.locator("#site-nav")
    assert not nav.is_visible() and page.locator(".menu-toggle").is_visible()
    page.click(".menu-toggle")
    assert nav.is_visible() and page.locator(".menu-toggle").get_attribute("aria-expanded") == "true"
    page.click(".menu-toggle")
    assert not nav.is_visible()
    page.set_viewport_size({"width": 1440, "height": 900})
    assert nav.is_visible() and not page.locator(".menu-toggle").is_visible()
    page.close()


def test_a_wide_table_scrolls_in_its_own_box_on_a_phone(browser, committed_site):
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto((committed_site / "index.html").as_uri())
    box = page.evaluate("""() => { const t = document.querySelector('#board'); const s = t.closest('.scroll');
        return {scroll: s.scrollWidth, client: s.clientWidth, page: document.documentElement.scrollWidth}; }""")
    assert box["scroll"] > box["client"] and box["page"] <= 390  # the table is wider than its box, the page is not
    page.close()
