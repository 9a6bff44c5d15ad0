"""Check a result dict before anything renders it: the scorer's result checks plus the site's own.

The checks of types and values (every shown fraction finite and in 0..1, the shapes' roofline numbers
from their timings, the geomean score from the shapes' fractions, statuses) live in
`scoring/result_checks.py`, shared with `python -m scoring.verify`; the site adds that the problem is
one under problems/. Each problem is an `Issue` naming the file, the field (dotted path) and the fix;
the file is then skipped and never shown.
"""

from __future__ import annotations

from typing import Any

from scoring.result_checks import check_result as check_result_file

from .issues import Issue


def check_result(data: Any, file: str, known_problems: set[str] | None = None) -> list[Issue]:
    """Every issue in one result dict; an empty list means the site can render it."""
    issues = check_result_file(data, file)
    if issues or known_problems is None:
        return issues
    name = data["problem"]["name"]
    if name not in known_problems:
        return [
            Issue(
                file,
                "problem.name",
                f"'{name}' is not a problem under problems/ (known: {', '.join(sorted(known_problems))})",
                "add the problem folder, or remove this result",
            )
        ]
    return []
