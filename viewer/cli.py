"""`python -m viewer PATH... [key=value ...]`: one page per session, an index page when there are
several, or `summary=true` for JSON instead of pages.

Conventions shared with `python -m scoring.run` and `python -m board`: `help` (or -h/--help) anywhere
prints every option with its default; a usage error (unknown key, missing file, empty folder) is one
line on stderr and exit 2; an input that is not a transcript is one line and exit 1, with no page
written for it; `-` reads the transcript from standard input; a reader closing the pipe early
(`--summary | head`) ends the command quietly.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from scoring.options import wants_help

from .cli_options import COMMAND, UsageError, split_arguments, usage_text
from .load import load_transcript
from .model import Transcript
from .sessions import NoTranscript, is_run_dir, session_files

STDIN = Path("-")  # the source name of a transcript read from standard input


class NotATranscript(ValueError):
    pass


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _run(argv)
    except BrokenPipeError:
        # The reader stopped reading (`| head`): nothing is wrong, so no traceback; point stdout at
        # /dev/null so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(argv: list[str]) -> int:
    if wants_help(argv):
        print(usage_text())
        return 0
    try:
        paths, options = split_arguments(argv)
        sessions = _sessions(paths)
    except (UsageError, NoTranscript) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    loaded: list[tuple[Path, Transcript]] = []
    failed = 0
    for source, file in sessions:
        try:
            loaded.append((source, _load(file, options.format or None)))
        except NotATranscript as error:
            print(f"error: {error}", file=sys.stderr)
            failed += 1
        if source == STDIN:
            file.unlink(missing_ok=True)  # the spooled copy; the parsed transcript holds what it needs
    if options.summary:
        summaries = [summary(t) for _, t in loaded]
        if summaries:
            print(json.dumps(summaries[0] if len(sessions) == 1 else summaries, indent=2))
        return 1 if failed else 0
    several = len(sessions) > 1
    if several:
        _write_index(paths, loaded, options)
    elif loaded:
        source, transcript = loaded[0]
        _write_one(source, transcript, options)
    return 1 if failed else 0


def _sessions(paths: list[str]) -> list[tuple[Path, Path]]:
    """(the path as named, the file or run folder to load) for every session the paths name."""
    found: list[tuple[Path, Path]] = []
    for raw in paths:
        if raw == "-":
            found.append((STDIN, _spool_stdin()))
            continue
        path = Path(raw)
        if not path.exists():
            hint = (
                f"; to name the page write out={raw}"
                if raw.endswith(".html")
                else "; give a transcript file, a session or run folder, or - for standard input"
            )
            raise UsageError(f"{raw}: no such file or directory{hint}")
        found.extend((file, file) for file in session_files(path))
    return found


def _spool_stdin() -> Path:
    """Standard input, copied to a temporary file: detection reads the head, parsers the whole."""
    handle = tempfile.NamedTemporaryFile(prefix="viewer-stdin-", suffix=".jsonl", delete=False)
    with handle:
        for block in iter(lambda: sys.stdin.buffer.read(1 << 20), b""):
            handle.write(block)
    return Path(handle.name)


def _load(file: Path, fmt: str | None) -> Transcript:
    if file.is_file() and file.stat().st_size == 0:
        raise NotATranscript(f"{file}: empty file, not a transcript (no page written)")
    transcript = load_transcript(file, format=fmt)
    if transcript.format == "unknown":
        reason = transcript.incomplete_reason.split(": ", 1)[-1]
        raise NotATranscript(f"{file}: not a transcript this viewer reads ({reason}; no page written)")
    return transcript


def _write_one(source: Path, transcript: Transcript, options) -> None:
    from .render.page import write_page

    run_dir = Path(options.run_dir) if options.run_dir else (source if source.is_dir() and is_run_dir(source) else None)
    if options.out:
        target = Path(options.out)
    elif source.is_dir():
        target = source / "transcript.html"
    elif source == STDIN:
        target = Path("transcript.html")  # in the current directory
    else:
        target = source.with_suffix(source.suffix + ".html")
    write_page(transcript, target, run_dir=run_dir, title=options.title or None)
    events = sum(1 for _ in transcript.all_events())
    print(f"wrote {target} ({target.stat().st_size:,} bytes; {transcript.format}, {events:,} events)")


def _write_index(paths: list[str], loaded: list[tuple[Path, Transcript]], options) -> None:
    from .render.index_page import write_index

    if options.out:
        index = Path(options.out)
    elif len(paths) == 1 and Path(paths[0]).is_dir():
        index = Path(paths[0]) / "index.html"
    else:
        index = Path("index.html")
    written = write_index(index, [t for _, t in loaded], title=options.title or None)
    print(f"wrote {index} ({len(loaded):,} sessions; pages in {written})")


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


__all__ = ["COMMAND", "main", "summary"]
