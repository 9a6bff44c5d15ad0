"""`python -m viewer.bench_index [--sessions 1000] [--browser] [--json FILE]`: write N small Claude
Code session files into one folder, build their index page the way `python -m viewer FOLDER`
does (every session's page plus the index), and time it; with --browser, also how fast the index
page opens in Chromium. A script, not a unit test: the numbers depend on the machine."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scoring.options import at_least, opt, parse_command

_MODELS = ("claude-sonnet-4-5-20250929", "claude-opus-4-5-20251101", "claude-haiku-4-5-20251001")


def write_sessions(folder: Path, count: int) -> list[Path]:
    """`count` Claude Code 2.x session files, each a prompt, a tool call and an answer."""
    paths = []
    for n in range(count):
        base = {"sessionId": f"s{n:05d}", "cwd": "/work/run", "version": "2.0.77", "isSidechain": False}
        day, second = 1 + n % 28, n % 3600
        stamp = f"2026-10-{day:02d}T10:{second // 60:02d}:{second % 60:02d}.000Z"
        usage = {
            "input_tokens": 10 + n % 50,
            "cache_read_input_tokens": 1000 * (n % 9),
            "cache_creation_input_tokens": 500,
            "output_tokens": 100 + n % 400,
        }
        model = _MODELS[n % len(_MODELS)]
        records = [
            base
            | {
                "type": "user",
                "uuid": "u1",
                "parentUuid": None,
                "timestamp": stamp,
                "message": {"role": "user", "content": f"Task {n}: make kernel {n} faster"},
            },
            base
            | {
                "type": "assistant",
                "uuid": "u2",
                "parentUuid": "u1",
                "timestamp": stamp,
                "requestId": "r1",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "model": model,
                    "stop_reason": None,
                    "usage": usage,
                    "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make bench"}}],
                },
            },
            base
            | {
                "type": "user",
                "uuid": "u3",
                "parentUuid": "u2",
                "timestamp": stamp,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "0.9 ms"}],
                },
            },
        ]
        if n % 10:  # every tenth session is cut off before its answer
            records.append(
                base
                | {
                    "type": "assistant",
                    "uuid": "u4",
                    "parentUuid": "u3",
                    "timestamp": stamp,
                    "requestId": "r2",
                    "message": {
                        "id": "m2",
                        "role": "assistant",
                        "model": model,
                        "stop_reason": None,
                        "usage": usage,
                        "content": [{"type": "text", "text": "Done: 0.9 ms."}],
                    },
                }
            )
        path = folder / f"session-{n:05d}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        paths.append(path)
    return paths


@dataclass(frozen=True)
class IndexBenchOptions:
    """The shared key=value parser's options (scoring/options.py): `--sessions 1000` reads as sessions=1000."""

    sessions: int = opt(1000, "how many sessions", allowed=at_least(1))
    keep: str = opt("", "write the sessions and pages here instead of a temporary folder")
    browser: bool = opt(False, "also time opening the index in Chromium")
    runs: int = opt(3, "browser page loads; the best is kept", allowed=at_least(1))
    json: str = opt("", "also write the numbers to this JSON file")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_command(IndexBenchOptions, argv, "python -m viewer.bench_index", __doc__.strip())
    if isinstance(args, int):
        return args

    from .cli import main as viewer_main

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="viewer-bench-index-"))
    folder.mkdir(parents=True, exist_ok=True)
    write_sessions(folder, args.sessions)
    start = time.perf_counter()
    viewer_main([str(folder)])
    built_s = time.perf_counter() - start
    index = folder / "index.html"
    print(
        f"built the index of {args.sessions:,} sessions and their pages in {built_s:.1f} s "
        f"(index {index.stat().st_size / 1024:.0f} KiB)"
    )
    report = {
        "command": "python -m viewer.bench_index " + " ".join(argv if argv is not None else sys.argv[1:]),
        "sessions": args.sessions,
        "build_s": round(built_s, 2),
        "index_kib": round(index.stat().st_size / 1024),
    }
    if args.browser:
        report["browser"] = time_index(index, args.runs)
        for key, value in report["browser"].items():
            print(f"browser {key:24} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def time_index(index: Path, runs: int) -> dict:
    """The browser's own clocks for the index page (best of `runs` loads), and its row count."""
    from playwright.sync_api import sync_playwright

    from .bench_browser import CHROMIUM, CHROMIUM_ARGS

    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for _ in range(runs):
                page = browser.new_page(viewport={"width": 1366, "height": 900})
                page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
                page.goto(index.resolve().as_uri(), wait_until="load", timeout=120_000)
                nav = page.evaluate(
                    "(() => { const n = performance.getEntriesByType('navigation')[0];"
                    " const p = performance.getEntriesByName('first-contentful-paint')[0];"
                    " return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, fcp: p ? p.startTime : null,"
                    " rows: document.querySelectorAll('tbody tr').length}; })()"
                )
                results.append(
                    {
                        "first_paint_s": None if nav["fcp"] is None else round(nav["fcp"] / 1000, 3),
                        "dom_content_loaded_s": round(nav["dcl"] / 1000, 3),
                        "load_event_s": round(nav["load"] / 1000, 3),
                        "rows": nav["rows"],
                    }
                )
                page.close()
        finally:
            browser.close()
    return min(results, key=lambda r: r["load_event_s"])


if __name__ == "__main__":
    sys.exit(main())
