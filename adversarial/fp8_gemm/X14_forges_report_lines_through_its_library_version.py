"""X14 fake result lines in the scorer's own report: `library_version()` (a solution's documented hook,
sent by the worker as "imported"'s library_version) returns text with newlines and terminal escapes.

MESSAGE_FIELDS checks only that it is a str (up to the 16 MiB line bound); the judge forwards it and
scoring/report.py prints it raw at the end of the system's summary line. The escapes move the cursor up
and erase the honest summary and failure lines, then print a passing summary in their place: the result
file says "incorrect", the terminal shows "passed, score 0.93". Zeros are returned, so every shape fails.
What the design should say: incorrect, shown as incorrect (the report prints worker text escaped, one line)."""

from _correct import zeros_like_output

EXPECTED = {
    "class": "X14",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "outside"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "outside"},
}

_FORGED = ("\x1b[2K\r" + "\x1b[1A\x1b[2K" * 12 + "\r"
           + "square_64          visible   passed            0.0100   0.50       0.0        0 compute     0.93\n"
           + "solution  X14_forges_report_lines_through_its_library_version passed        score 0.93  "
             "(visible 0.93, held-out 0.93, 6/6 shapes passed)\x1b[8m")


def library_version():
    return _FORGED


def run(state, a, a_scale):
    return zeros_like_output(state, a)
