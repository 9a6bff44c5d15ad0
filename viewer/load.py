"""`load_transcript`: find the transcript in a path, detect its format, parse it.

A parser failure never escapes: the transcript comes back with one error event naming the file
and the failure, so a page can still be built.
"""

from __future__ import annotations

import json
import tempfile
import traceback
from dataclasses import replace
from pathlib import Path

from .detect import UnknownFormat, detect_format
from .jsonl import read_json
from .model import Event, Transcript
from .parsers import PARSERS

ARRAY_LIMIT_BYTES = 500_000_000  # a JSON array is parsed whole; above this it is not tried
_SIDECAR_SUFFIXES = (".meta.json", ".settings.json")
_SIDECAR_NAMES = {"settings.json", "result.json", "meta.json"}


def find_transcript_file(path: Path) -> Path:
    """The transcript inside a run directory (`transcript.*`, else `native/`) or session folder."""
    path = Path(path)
    if path.is_file():
        return path
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: no such file or directory")
    named = sorted(p for p in path.glob("transcript.*") if p.is_file())
    if named:
        return named[0]
    for folder in (path / "native", path):
        candidates = [p for p in folder.rglob("*") if is_candidate(p)] if folder.is_dir() else []
        if candidates:
            # The main log is the biggest non-sidecar file (subagent files are smaller parts of it).
            return max(candidates, key=lambda p: (p.stat().st_size, -len(p.parts)))
    raise FileNotFoundError(f"{path}: no transcript.* file and no .jsonl/.json log under native/")


def is_candidate(p: Path) -> bool:
    return (
        p.is_file()
        and p.suffix in (".jsonl", ".json", ".ndjson")
        and p.name not in _SIDECAR_NAMES
        and not p.name.endswith(_SIDECAR_SUFFIXES)
        and "subagents" not in p.parts
        and not p.name.startswith("agent-")
    )


def load_transcript(path: str | Path, format: str | None = None) -> Transcript:  # noqa: A002 (contract name)
    """Parse a transcript file, or the transcript in a directory, into the normalised model."""
    file = find_transcript_file(Path(path))
    if format is not None and format not in PARSERS:
        raise ValueError(f"unknown format {format!r}; known: {', '.join(sorted(PARSERS))}")
    records = _json_array_of_records(file)
    if records is not None:  # a JSON array of records (an export): read as the JSONL it holds
        with tempfile.TemporaryDirectory(prefix="viewer-array-") as folder:
            lines = Path(folder) / (file.stem + ".jsonl")
            lines.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
            transcript = load_transcript(lines, format)
        return replace(transcript, path=str(file))
    try:
        fmt = format or detect_format(file)
    except UnknownFormat as error:
        return _failed(file, "unknown", str(error))
    module = PARSERS[fmt]
    try:
        return module.parse(file)
    except Exception as error:  # noqa: BLE001 - a parser bug must not stop the page build
        where = traceback.extract_tb(error.__traceback__)[-1]
        return _failed(
            file,
            fmt,
            f"{file}: the {fmt} parser failed: {type(error).__name__}: {error} "
            f"(at {Path(where.filename).name}:{where.lineno})",
            module.HARNESS,
        )


def _json_array_of_records(file: Path) -> list[dict] | None:
    """The records of a file holding one JSON array of objects (`[{...}, {...}]`), else None."""
    with open(file, "rb") as handle:
        if handle.read(64).lstrip()[:1] != b"[":
            return None
    if file.stat().st_size > ARRAY_LIMIT_BYTES:
        return None
    whole = read_json(file)
    if isinstance(whole, list) and whole and all(isinstance(r, dict) for r in whole):
        return whole
    return None


def _failed(file: Path, fmt: str, message: str, harness: str = "unknown") -> Transcript:
    return Transcript(
        format=fmt,
        harness=harness,
        path=str(file),
        complete=False,
        incomplete_reason=message,
        events=(Event("error", anchor="e1", text=message, subtype="viewer", source=file.name),),
        warnings=(message,),
    )
