"""Command line: `python -m viewer PATH [--out FILE | out=FILE]` renders one page; `--summary`
prints the normalised metadata and tokens as JSON instead."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .load import load_transcript
from .parsers import PARSERS
from .render.page import write_page


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m viewer",
        description="Render an agent transcript (a file, or a run directory) as one self-contained HTML page.",
    )
    parser.add_argument("path", help="a transcript file, or a run/session directory holding one")
    parser.add_argument("out_kw", nargs="?", metavar="out=FILE", help="same as --out (accepted for convenience)")
    parser.add_argument(
        "-o",
        "--out",
        default=None,
        help="output HTML file (default: <run dir>/transcript.html, or <file>.html beside the file)",
    )
    parser.add_argument(
        "--format",
        choices=sorted(PARSERS),
        default=None,
        help="force the transcript format (default: detected from the file)",
    )
    parser.add_argument(
        "--run-dir",
        default=None,
        help="run directory whose artifacts get tabs (default: PATH itself when it is a directory)",
    )
    parser.add_argument("--title", default=None, help="page title (default: harness · model · session)")
    parser.add_argument(
        "--summary",
        action="store_true",
        help="print the run's metadata and normalised tokens as JSON; write no page (default: off)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out = args.out
    if args.out_kw:
        if not args.out_kw.startswith("out="):
            print(f"unexpected argument {args.out_kw!r}: write out=FILE or --out FILE", file=sys.stderr)
            return 2
        out = args.out_kw[len("out=") :]
    path = Path(args.path)
    if not path.exists():
        print(f"{path}: no such file or directory", file=sys.stderr)
        return 2
    transcript = load_transcript(path, format=args.format)
    if args.summary:
        print(json.dumps(summary(transcript), indent=2))
        return 0
    run_dir = Path(args.run_dir) if args.run_dir else (path if path.is_dir() else None)
    target = (
        Path(out) if out else (path / "transcript.html" if path.is_dir() else path.with_suffix(path.suffix + ".html"))
    )
    write_page(transcript, target, run_dir=run_dir, title=args.title)
    print(
        f"wrote {target} ({target.stat().st_size:,} bytes; {transcript.format}, {sum(1 for _ in transcript.all_events()):,} events)"
    )
    return 0


def summary(t) -> dict:
    return {
        "format": t.format,
        "format_version": t.format_version,
        "harness": t.harness,
        "model": t.model,
        "effort": t.effort,
        "session_id": t.session_id,
        "cwd": t.cwd,
        "started_at": t.started_at,
        "duration_s": t.duration_s,
        "complete": t.complete,
        "incomplete_reason": t.incomplete_reason,
        "turns": t.turns,
        "tool_calls": t.tool_calls,
        "tokens": t.tokens.as_dict(),  # a count the transcript did not record is null, never 0
        "tokens_recorded": t.tokens.recorded,
        "warnings": list(t.warnings),
        "cost_usd": t.cost_usd,
        "files_changed": [f.path for f in t.file_changes],
        "subagents": sum(1 for top in t.subagents for _ in top.walk()),
    }


__all__ = ["main", "summary"]
