"""Robustness: a file Python refuses to compile is an import error, not a crash of the scorer.

The error ('return' outside a function) is one the compiler raises but the parser accepts, so ruff and
scoring/corpus/cases.py can still read this file (a parse error would also work: EXPECTED is then read
from the lines above it).
"""

EXPECTED = {
    "class": None,
    "cpu": {"status": "import_error", "detail": "SyntaxError"},
    "gpu": {"status": "import_error", "detail": "SyntaxError"},
}

return EXPECTED  # noqa: F706 -- the deliberate error
