"""Screenshots of viewer pages for docs/screenshots/ (Debian's Chromium through Playwright, every
outside request blocked): `python tests/viewer/take_screenshots.py OUT_DIR PAGE.html...`.
Each PNG is the top of the page at 1100x900, the first screen a reader sees."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.offline_browser import CHROMIUM, CHROMIUM_ARGS


def main(out_dir: str, *pages: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort()
        )
        for html in pages:
            page.goto(Path(html).resolve().as_uri())
            target = out / (Path(html).stem + ".png")
            page.screenshot(path=str(target), full_page=False)
            print(f"wrote {target} ({target.stat().st_size:,} bytes)")
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1], *sys.argv[2:])
