"""Why a solution did not pass, in classes a reader can act on. The rubric is untouched: this only reads
the shapes' statuses and check statistics of a finished system, lists every class that its failing shapes
show (`classes`, most severe first) and names the most severe one as its headline (`class`).

Classes (LABELS holds them in this order, which SEVERITY refines):
  forbidden_op    a forbidden operator or vendor library kernel (X21)
  integrity       tampering, a timing-rule or audit verdict
  build_or_import the import failed (a build of a C++/CUDA extension included; the detail names the reason,
                  e.g. missing CUTLASS headers)
  timeout         a shape or the import ran out of time
  runtime_error   an exception, a crash, a CUDA error
  nan_inf         the output held NaN or Inf
  near_miss       every failing check had its normwise error within the bound and at most
                  NEAR_MISS_MAX_SHARE of the output beyond the element-wise bound
  wrong_output    any other incorrect output
  rejected        a fraction above the peak
`unseen_only` is true when every failing shape is held-out or property while the visible ones pass: a
kernel tuned to, or only correct on, the shapes it was shown.

Severity, not the order above, picks the headline, because a reader takes the headline for what is wrong
with the file: a rule verdict (forbidden operator, integrity) disqualifies the whole file; a wrong answer
given silently (NaN/Inf or wrong output) outranks a loud failure (an exception, a timeout, a failed
build), which outranks a near miss (the numerics of an allowed shortcut). Within one tier the class seen on
a visible shape wins, then the class of more shapes: a file wrong on the shapes it was shown is headlined
by that, not by an assert on a shape it never saw.
"""

from __future__ import annotations

import itertools
import re

# At most one element in ten thousand beyond the element-wise bound, with the normwise error in bound: the
# signature of fp8 accumulation without promotion or a borderline rounding path, not of a wrong kernel.
NEAR_MISS_MAX_SHARE = 1e-4
UNSEEN_SETS = ("held_out", "property")

LABELS = {
    "forbidden_op": "forbidden operator",
    "integrity": "integrity verdict",
    "build_or_import": "build or import failure",
    "timeout": "timeout",
    "runtime_error": "runtime error",
    "nan_inf": "NaN/Inf output",
    "near_miss": "near miss",
    "wrong_output": "wrong output",
    "rejected": "fraction above the peak",
}
_STATUS_CLASS = {
    "forbidden_op": "forbidden_op",
    "integrity": "integrity",
    "import_error": "build_or_import",
    "timeout": "timeout",
    "runtime_error": "runtime_error",
    "rejected": "rejected",
}
ORDER = tuple(LABELS)
# Tiers of severity, most severe first (see the module docstring for why).
SEVERITY_TIERS = (
    ("forbidden_op", "integrity"),
    ("nan_inf", "wrong_output"),
    ("runtime_error", "timeout", "build_or_import"),
    ("near_miss",),
    ("rejected",),
)
TIER = {cls: rank for rank, tier in enumerate(SEVERITY_TIERS) for cls in tier}
assert set(TIER) == set(LABELS), "every class needs a severity tier"


def _incorrect_class(check: dict, normwise_bound: float | None) -> str:
    if check.get("nonfinite_elements", 0) > 0:
        return "nan_inf"
    elements, bad = check.get("elements") or 0, check.get("bad_elements", 0)
    normwise = check.get("normwise_err")
    within_normwise = normwise is not None and normwise_bound is not None and normwise <= normwise_bound
    if within_normwise and elements and bad <= NEAR_MISS_MAX_SHARE * elements:
        return "near_miss"
    return "wrong_output"


def shape_class(shape: dict, normwise_bound: float | None) -> str | None:
    """The class of one shape's failure, or None when it passed (or was not run)."""
    status = shape.get("status")
    if status == "incorrect":
        return _incorrect_class(shape.get("check") or {}, normwise_bound)
    return _STATUS_CLASS.get(status)


TRACEBACK_STARTS = ('File "', "Traceback (most recent call last)", "The above exception")
# An exception with no message of its own: its type and a colon, nothing after (a bare `assert`).
EMPTY_MESSAGE = re.compile(r"^[A-Za-z_][\w.]*:$")
FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)')


def raised_at(lines: list[str]) -> str:
    """Where a traceback's exception was raised: "at FILE:LINE: code" of its innermost frame, or ""."""
    for i in range(len(lines) - 1, -1, -1):
        frame = FRAME.match(lines[i])
        if frame:
            code = lines[i + 1].strip() if i + 1 < len(lines) and not FRAME.match(lines[i + 1]) else ""
            place = f"at {frame.group(1).rsplit('/', 1)[-1]}:{frame.group(2)}"
            return f"{place}: {code}" if code else place
    return ""


def headline(detail: str, limit: int = 300) -> str:
    """The line of a failure's detail a reader needs. Usually its first line; but a compiler error that
    starts with a location and quotes the source (Triton's CompilationError: "at 73:37:", the source, a
    caret line) says what went wrong only after the caret, so that message line is appended; and an
    exception with no message (a bare `assert T % 64 == 0`) is told by where it was raised, the innermost
    frame of the traceback after it."""
    lines = (detail or "").splitlines()
    if not lines:
        return ""
    first = lines[0].strip()
    if EMPTY_MESSAGE.match(first):
        where = raised_at(lines[1:])
        if where:
            first = f"{first} {where}"
    elif first.endswith(":"):
        # Only the message's own lines: a traceback after it has caret lines under its code lines too.
        own = list(itertools.takewhile(lambda line: not line.lstrip().startswith(TRACEBACK_STARTS), lines[1:]))
        caret = next((i for i, line in enumerate(own) if line.strip() and set(line.strip()) == {"^"}), None)
        message = next((line.strip() for line in own[caret + 1 :] if line.strip()), "") if caret is not None else ""
        if message:  # none when the compiler's message was empty and the traceback follows the caret
            first = f"{first} {message}"
    return first[:limit]


def classify(system: dict, normwise_bound: float | None) -> dict | None:
    """{class, label, shapes, unseen_only, detail} for a system that did not pass; None for one that did."""
    if system.get("status") == "passed":
        return None
    by_shape = {s["name"]: shape_class(s, normwise_bound) for s in system.get("shapes", [])}
    failing = {name: cls for name, cls in by_shape.items() if cls}
    audit_failed = [a for a in system.get("audits", []) if str(a.get("outcome", "")).startswith("failed")]
    if not failing and not audit_failed:
        return None  # not_available or not_run: nothing failed, nothing ran
    sets = {s["name"]: s.get("shape_set") for s in system.get("shapes", [])}
    classes = classes_by_severity(failing, sets)
    if classes:
        first = next(iter(classes))
    else:
        first = "forbidden_op" if any("X21" in a.get("classes", []) for a in audit_failed) else "integrity"
        classes = {first: []}
    visible_passed = all(
        s.get("status") == "passed" for s in system.get("shapes", []) if s.get("shape_set") == "visible"
    )
    unseen_only = bool(failing) and visible_passed and all(sets.get(name) in UNSEEN_SETS for name in failing)
    details = [
        s.get("detail") for s in system.get("shapes", []) if by_shape.get(s["name"]) == first and s.get("detail")
    ]
    detail = details[0] if details else (system.get("import_detail") or next((a["outcome"] for a in audit_failed), ""))
    return {
        "class": first,
        "label": LABELS[first],
        "shapes": sorted(n for n, c in failing.items() if c == first),
        "unseen_only": unseen_only,
        "detail": headline(detail),
        "classes": classes,
    }


def classes_by_severity(failing: dict[str, str], shape_sets: dict[str, str | None]) -> dict[str, list[str]]:
    """{class: its failing shapes}, most severe first: by tier, then seen on a visible shape, then by the
    number of shapes, then in LABELS' order."""
    shapes_of: dict[str, list[str]] = {}
    for name, cls in failing.items():
        shapes_of.setdefault(cls, []).append(name)

    def rank(cls: str) -> tuple:
        on_visible = any(shape_sets.get(name) == "visible" for name in shapes_of[cls])
        return TIER[cls], not on_visible, -len(shapes_of[cls]), ORDER.index(cls)

    return {cls: sorted(shapes_of[cls]) for cls in sorted(shapes_of, key=rank)}


def tolerance_normwise(problem) -> float | None:
    """The normwise tolerance a result's `problem` records, or None where it records none (or not as a number)."""
    tolerance = problem.get("tolerance") if isinstance(problem, dict) else None
    bound = tolerance.get("normwise") if isinstance(tolerance, dict) else None
    return bound if isinstance(bound, (int, float)) and not isinstance(bound, bool) else None


def reread_failure(system: dict, normwise_bound: float | None) -> dict | None:
    """A finished system's recorded failure read again from its shapes: how a failure is read improves (the
    headline class by severity, every class listed, a compiler error's reason, where a bare assert was
    raised) while result files are never edited. Where the shapes' most severe class is not the recorded
    one (results written when the first class in a fixed order won), the derived failure is returned with
    `recorded_class` naming what the result says. Under the recorded class, only a detail that carries the
    recorded one further replaces it. A failure without shapes to read is returned as it was recorded."""
    recorded = system.get("failure")
    if not isinstance(recorded, dict):
        return recorded
    try:
        derived = classify(system, normwise_bound)
    except (AttributeError, KeyError, TypeError, ValueError):
        return recorded
    if not derived:
        return recorded
    if derived["class"] != recorded.get("class"):
        return dict(derived, recorded_class=recorded.get("class"))
    before = str(recorded.get("detail") or "")
    detail = derived["detail"] if derived["detail"].startswith(before) else recorded.get("detail")
    return dict(recorded, detail=detail, classes=derived["classes"])
