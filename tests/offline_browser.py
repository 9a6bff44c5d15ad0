"""Debian's Chromium through Playwright with every non-file:// request blocked and recorded.

Shared by the viewer's and the site's browser tests. The context's `outside_requests` lists what was
blocked, so a test can assert that a page asked for nothing outside itself.
"""

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
# The flags the env notes give for a closed network: without the background-networking ones Chromium's
# own connections are refused many at a time.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def offline_chromium(profile_prefix: str):
    """Yield a persistent Playwright context; skip the test cleanly where Chromium or Playwright is absent."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as playwright:
        profile = Path(tempfile.mkdtemp(prefix=profile_prefix))
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            viewport={"width": 1366, "height": 900},
            args=CHROMIUM_ARGS,
        )
        outside: list[str] = []

        def route(request_route):
            if request_route.request.url.startswith("file://"):
                request_route.continue_()
            else:
                outside.append(request_route.request.url)
                request_route.abort()

        context.route("**/*", route)
        context.outside_requests = outside
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)
