"""How fast a written transcript page opens in Chromium: the browser half of `python -m viewer.bench`.

Opens the page from disk in Debian's Chromium through Playwright (no outside request can leave) and
reads the browser's own clocks: first contentful paint, DOMContentLoaded (the page's script has run
by then, so the controls answer), the load event, then the time a search over every event takes to
report its count, and the time a jump to the last event takes to show it. A script, not a test.
"""

from __future__ import annotations

import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def time_page(page_path: Path, query: str = "needle-not-there", runs: int = 1) -> dict:
    """Browser timings in seconds (the best of `runs` fresh page loads for the open times)."""
    from playwright.sync_api import (
        sync_playwright,  # imported late: only this benchmark needs it
    )

    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for _ in range(runs):
                page = browser.new_page(viewport={"width": 1366, "height": 900})
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
                start = time.perf_counter()
                page.goto(page_path.resolve().as_uri(), wait_until="load", timeout=300_000)
                wall_load = time.perf_counter() - start
                nav = page.evaluate(
                    "(() => { const n = performance.getEntriesByType('navigation')[0];"
                    " const p = performance.getEntriesByName('first-contentful-paint')[0];"
                    " return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, fcp: p ? p.startTime : null,"
                    " nodes: document.getElementsByTagName('*').length}; })()"
                )
                search_s = _search(page, query)
                jump_s = _jump_to_last(page)
                results.append(
                    {
                        "first_paint_s": None if nav["fcp"] is None else round(nav["fcp"] / 1000, 3),
                        "dom_content_loaded_s": round(nav["dcl"] / 1000, 3),
                        "load_event_s": round(nav["load"] / 1000, 3),
                        "wall_to_load_s": round(wall_load, 3),
                        "dom_elements_at_load": nav["nodes"],
                        "search_all_s": search_s,
                        "jump_to_last_event_s": jump_s,
                    }
                )
                page.close()
        finally:
            browser.close()
    return min(results, key=lambda r: r["load_event_s"])


def _search(page, query: str) -> float:
    """Seconds from typing a query until the status line reports the count over every event."""
    page.evaluate("document.getElementById('search-status').textContent = ''")
    start = time.perf_counter()
    page.fill("#search", query)
    _wait(page, "document.getElementById('search-status').textContent.includes('match')")
    elapsed = time.perf_counter() - start
    page.fill("#search", "")
    _wait(page, "document.getElementById('search-status').textContent === ''")
    return round(elapsed, 3)


def _jump_to_last(page) -> float:
    """Seconds from following a link to the page's last event until it is on screen."""
    last = page.evaluate(
        "document.getElementById('timeline').dataset.lastEvent || [...document.querySelectorAll('article.ev')].pop().id"
    )
    start = time.perf_counter()
    page.evaluate(f"location.hash = '#{last}'")
    _wait(
        page,
        f"(() => {{ const e = document.getElementById('{last}'); if (!e) return false;"
        " const r = e.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })()",
    )
    return round(time.perf_counter() - start, 3)


def _wait(page, condition: str, timeout_s: float = 300.0) -> None:
    """Poll a condition from here: the page's CSP forbids the eval that wait_for_function uses."""
    deadline = time.perf_counter() + timeout_s
    while not page.evaluate(condition):
        if time.perf_counter() > deadline:
            raise TimeoutError(f"still false after {timeout_s:g} s: {condition}")
        time.sleep(0.01)
