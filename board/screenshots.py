"""`python -m board.screenshots [site=site] [out=docs/screenshots] [run=RUN_ID] [problem=fp8_gemm]`.

Screenshots of a built site for the docs: the leaderboard, a problem page and a run page, each at a desktop
width (1440 x 900) and a phone width (390 x 844), one screen of each: the first (what a reader sees on
opening it), and for the problem page the screen from its first hardware section (the figures), in
Debian's Chromium with every non-file request blocked. Without run=, the newest ranked house run of
the problem is shown. Needs playwright; a tool for the docs, not part of the build. Options on the shared
`key=value` parser (scoring/options.py): `help` anywhere prints them, a usage error exits 2.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from scoring.options import opt, parse_command

from .bench import CHROMIUM, CHROMIUM_ARGS

WIDTHS = {"1440": {"width": 1440, "height": 900}, "390": {"width": 390, "height": 844}}


def _newest_ranked_run(site: Path, problem: str) -> str:
    """The run the problem's leaderboard cell links to (the median ranked run), read from the board page."""
    board = (site / "index.html").read_text()
    marker = f'href="run/'
    for chunk in board.split('<td class="cell cat-pass"')[1:]:
        href = chunk.split(marker, 1)[1].split('.html"', 1)[0] if marker in chunk else ""
        if href and problem in href and "house" in href:
            return href
    raise SystemExit(f"no ranked house run of {problem} on {site}/index.html; pass run=RUN_ID")


@dataclass(frozen=True)
class ScreenshotOptions:
    site: str = opt("site", "the built site to photograph (python -m board writes it)")
    out: str = opt("docs/screenshots", "folder the PNG files are written into")
    run: str = opt("", "run id of the run page; empty = the problem's ranked house run on the leaderboard")
    problem: str = opt("fp8_gemm", "problem whose page (and house run) is photographed")


def main(argv: list[str]) -> int:
    options = parse_command(ScreenshotOptions, argv, "python -m board.screenshots")
    if isinstance(options, int):
        return options
    site, out = Path(options.site).resolve(), Path(options.out)
    if not (site / "index.html").is_file():
        print(
            f"error: site={options.site}: no index.html there; build the site first (python -m board)", file=sys.stderr
        )
        return 2
    problem = options.problem
    run_id = options.run or _newest_ranked_run(site, problem)
    pages = {"index": "index.html", "problem": f"problem/{problem}.html", "run": f"run/{run_id}.html"}
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for width, viewport in WIDTHS.items():
            page = browser.new_page(viewport=viewport)
            page.route(
                "**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort()
            )
            for name, rel in pages.items():
                page.goto((site / rel).as_uri())
                plots = page.evaluate("document.querySelectorAll('div.plot').length")
                if plots:
                    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length === {plots}")
                if name == "problem":
                    page.evaluate("document.querySelector('h2[id^=hw-]').scrollIntoView()")
                target = out / f"{name}-{width}.png"
                page.screenshot(path=str(target))
                print(f"{target}: {rel} at {width} px, {target.stat().st_size / 1e3:.0f} kB")
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
