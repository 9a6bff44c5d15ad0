"""A bad input file, reported as file, field, what is wrong and the fix (never a traceback).

`Issue` is the scorer's (scoring/result_fields.py), so the site and `python -m scoring.verify` report
a bad result file in the same words.
"""

from __future__ import annotations

from scoring.result_fields import Issue

__all__ = ["BuildError", "Issue"]


class BuildError(Exception):
    """The build cannot go on (strict mode with bad files, or an unusable folder); no traceback is shown."""
