"""Robustness: a file without run(state, ...) is an import error naming what is missing."""

EXPECTED = {
    "class": None,
    "cpu": {"status": "import_error", "detail": "defines no run"},
    "gpu": {"status": "import_error", "detail": "defines no run"},
}

x = 1
