"""The loop every JSON-lines parser opens with, written once: read the file line by line, keep a
line that is not a JSON object as a raw event (a truncated last line is shown, never fatal), and
hand each object on to the format's own dispatch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from ..builder import MAIN, Builder
from ..coerce import to_str, to_time_s
from ..jsonl import Line, iter_lines


def records(b: Builder, path: Path, agent: str | None = MAIN) -> Iterator[tuple[Line, dict[str, Any]]]:
    """Each JSON object in `path` with its line; any other line becomes a raw event in `agent`'s
    thread, in file order (the generator is lazy, so raw events interleave with the parser's own)."""
    for line in iter_lines(path):
        if line.obj is None:
            b.raw(line, agent=agent)
        else:
            yield line, line.obj


def type_and_time(obj: dict[str, Any]) -> tuple[str, float | None]:
    """The record's `type` ("" when absent) and its `timestamp` in seconds: most formats put both
    on every record."""
    return to_str(obj.get("type")), to_time_s(obj.get("timestamp"))
