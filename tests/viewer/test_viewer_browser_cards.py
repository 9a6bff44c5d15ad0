"""Issue 35's pages in Debian's Chromium (every outside request blocked): the showcase pages and the
session index load without console errors, the 200-character tool-input preview expands on
'show all', a search finds an event inside the folded setup events, and the index links open."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.offline_browser import offline_chromium
from viewer import write_transcript_page
from viewer.cli import main as viewer_main

FIXTURES = Path(__file__).parent / "fixtures"
SHOWCASE = sorted((FIXTURES / "showcase").glob("*.jsonl"))

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    with offline_chromium("viewer-cards-chromium-") as context:
        yield context


def _open(browser, path: Path):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors


@pytest.mark.parametrize("source", SHOWCASE, ids=lambda p: p.stem)
def test_showcase_pages_load_clean(browser, tmp_path, source):
    before = len(browser.outside_requests)
    page, errors = _open(browser, write_transcript_page(source, tmp_path / "p.html"))
    assert page.locator("#timeline article[data-kind=user]").first.is_visible()
    page.close()
    assert errors == [] and browser.outside_requests[before:] == []


def test_show_all_expands_a_long_tool_input(browser, tmp_path):
    page, errors = _open(browser, write_transcript_page(SHOWCASE[0], tmp_path / "claude.html"))
    bash = page.locator("article.ev-tool", has_text="Bash")
    assert "shape 12" not in bash.locator(".args").inner_text()
    bash.locator(".args .show-all").click()
    assert "print('shape 12', 6144)" in bash.locator(".args").inner_text()
    page.close()
    assert errors == []


def test_search_opens_the_folded_setup_events(browser, tmp_path):
    codex = next(p for p in SHOWCASE if p.stem.startswith("codex"))
    page, errors = _open(browser, write_transcript_page(codex, tmp_path / "codex.html"))
    assert not page.locator("details.preamble").evaluate("d => d.open")
    page.fill("#search", "codex_cli_rs")  # only in the session record, folded before the first user message
    page.locator("#search-status").filter(has_text="1 event matches").wait_for()
    assert page.locator("details.preamble").evaluate("d => d.open")
    page.close()
    assert errors == []


def test_the_index_page_loads_clean_and_links_each_session(browser, tmp_path, capsys):
    for source in SHOWCASE:
        (tmp_path / source.name).write_bytes(source.read_bytes())
    assert viewer_main([str(tmp_path)]) == 0
    page, errors = _open(browser, tmp_path / "index.html")
    assert page.locator("tbody tr").count() == len(SHOWCASE)
    page.locator("tbody tr a").first.click()
    page.wait_for_load_state("load")
    assert page.locator("#timeline").count() == 1
    page.close()
    assert errors == []
