"""Text from result files made fit to publish: no machine's absolute paths, no raw tracebacks in view.

Results record what their machine saw: the command with its temporary and output folders, the scorer's
own files in a traceback, a library under site-packages. A page shows such a path relative to a folder
a reader knows: from the repository's top-level folder it names (`scoring/worker.py`), from inside
site-packages (`torch/nn/functional.py`), else only its last part (`…/solution.py`). An error is shown
as one line (the exception's own line), the full text (paths made relative) in a collapsed block.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Top-level folders of the repository (README's map): a path through one of them is shown from there.
REPO_FOLDERS = (
    "scoring",
    "problems",
    "harnesses",
    "viewer",
    "board",
    "results",
    "adversarial",
    "scripts",
    "tests",
    "docs",
    "site",
)
LIBRARY_FOLDERS = ("site-packages", "dist-packages")
# An absolute path of at least two parts, not inside a URL (a '/' after ':' or '/') or a relative path.
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])/(?:[^\s/'\"<>:,;()\[\]{}|`=]+/)+[^\s/'\"<>:,;()\[\]{}|`=]*")


def _relative(match: re.Match) -> str:
    parts = [p for p in match.group(0).split("/") if p]
    for i, part in enumerate(parts):
        if part in LIBRARY_FOLDERS and i + 1 < len(parts):
            return "/".join(parts[i + 1 :])
    for i, part in enumerate(parts[:-1]):
        if part in REPO_FOLDERS:
            return "/".join(parts[i:])
    return "…/" + parts[-1] if parts else "…"


@lru_cache(maxsize=8192)
def relative_paths(text: str) -> str:
    """`text` with every absolute path made relative (see the module docstring)."""
    return ABSOLUTE_PATH.sub(_relative, text) if "/" in text else text


_PLAIN = (int, float, bool, type(None))


def scrub(value):
    """A JSON-like value with relative_paths applied to every string in it (keys too). A list whose first item
    is a number is taken as numbers and kept as it is: a result's per-call timings are most of its items.
    Plain values and strings without a '/' are tested inline: a run page scrubs a ~48 kB result."""
    if isinstance(value, str):
        return relative_paths(value) if "/" in value else value
    if isinstance(value, dict):
        return {
            (relative_paths(k) if "/" in k else k) if isinstance(k, str) else k: v
            if isinstance(v, _PLAIN) or (isinstance(v, str) and "/" not in v)
            else scrub(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        if value and isinstance(value[0], (int, float)):
            return value
        return [scrub(v) for v in value]
    return value


def error_line(text) -> str:
    """One line for an error text: its first line, or for a bare traceback the exception's own (last) line."""
    if not isinstance(text, str) or not text.strip():
        return ""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    first = lines[0]
    if first.startswith("Traceback (most recent call last)"):
        first = lines[-1]
    return relative_paths(first if len(first) <= 300 else first[:297] + "...")


def error_body(text) -> str:
    """The full error text with paths made relative, or "" when error_line already says all of it."""
    if not isinstance(text, str) or "\n" not in text.strip():
        return ""
    return relative_paths(text.strip())
