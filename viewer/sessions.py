"""Which sessions a command-line path names: a file is one; a run folder (`transcript.*`,
`native/`, `result.json`) is one; any other folder is every transcript file directly inside it
(a Claude Code project folder, a Codex day folder), or, with none there, the one found below it."""

from __future__ import annotations

from pathlib import Path

from .load import find_transcript_file, is_candidate

_RUN_DIR_MARKERS = ("result.json", "native", "solution.py")


class NoTranscript(ValueError):
    """A folder with no transcript file in it (a usage error: the wrong folder was named)."""


def is_run_dir(folder: Path) -> bool:
    return any(folder.glob("transcript.*")) or any((folder / name).exists() for name in _RUN_DIR_MARKERS)


def session_files(path: Path) -> list[Path]:
    """The transcript files `path` stands for, in name order; raises NoTranscript for a folder with none."""
    if path.is_file() or is_run_dir(path):
        return [path]
    direct = sorted(p for p in path.iterdir() if is_candidate(p))
    if direct:
        return direct
    try:
        return [find_transcript_file(path)]
    except FileNotFoundError:
        raise NoTranscript(f"{path}: no transcript in this folder (no .jsonl/.json log in it or below it)") from None
