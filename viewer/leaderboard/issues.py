"""A bad input file, reported as file, field, what is wrong and the fix (never a traceback)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Issue:
    file: str
    field: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.file}: field '{self.field}': {self.problem}. Fix: {self.fix}"


class BuildError(Exception):
    """The build cannot go on (strict mode with bad files, or an unusable folder); no traceback is shown."""
