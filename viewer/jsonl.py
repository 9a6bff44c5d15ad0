"""Reading transcript files line by line without ever raising on bad input.

Every line comes back with its 1-based number; a line that is not a JSON object comes back
with `obj=None` and its text, so the parser can keep it as a raw event. A truncated final line
(the agent was killed mid-write) is just such a line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

# A raw line longer than this is cut when kept for display (the file on disk stays verbatim).
RAW_TEXT_LIMIT_CHARS = 20_000


@dataclass(frozen=True)
class Line:
    number: int
    obj: dict[str, Any] | None
    text: str = ""  # the line's text, kept only when it did not parse


def iter_lines(path: Path) -> Iterator[Line]:
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            stripped = raw.strip()
            if not stripped:
                continue
            try:
                obj = json.loads(stripped)
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict):
                yield Line(number, obj)
            else:
                text = stripped[:RAW_TEXT_LIMIT_CHARS].decode("utf-8", errors="replace")
                yield Line(number, None, text)


def read_json(path: Path) -> Any:
    """The whole file as one JSON value, or None when it is not valid JSON."""
    try:
        with open(path, "rb") as handle:
            return json.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return None


def head_lines(path: Path, limit: int = 40, max_bytes: int = 4_000_000) -> list[Line]:
    """The first few lines, for format detection."""
    out: list[Line] = []
    read = 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            read += len(raw)
            stripped = raw.strip()
            if stripped:
                try:
                    obj = json.loads(stripped)
                except (ValueError, RecursionError):
                    obj = None
                out.append(Line(number, obj if isinstance(obj, dict) else None))
            if len(out) >= limit or read >= max_bytes:
                break
    return out
