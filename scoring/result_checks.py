"""Check a result file before anyone shows it: its fields, then its values against its own per-shape data.

Torch-free and free of site libraries: the site build skips a file that fails (never showing it) and
`python -m scoring.verify` runs the same checks for anyone who downloads result files. The first pass
(result_fields.py) checks presence and types; this module compares the values, by calling the
scorer's own rules rather than restating them:
- a shape's fraction, achieved TFLOPS and GB/s, roofline time and bound follow from its flops,
  bytes_moved and timing.median_ms under the file's peak row (`scoring.roofline.roofline_point`);
- every fraction is a finite number in 0..MAX_PLAUSIBLE_FRACTION; only a `rejected` shape records one
  above it (the reason it was rejected), and the site never shows that one;
- a system's status is the most serious of its shapes' (`integrity` when an audit failed;
  `scoring.result.system_status`), or `not_available` when it has no shapes (its file was absent);
- its score is `scoring.result.geomean_score` of its shapes: the headline is the geomean over visible and
  held-out shapes, 0.0 unless every shape passed and no audit failed; null (NaN in files before 2026-11-27)
  only for a set with no shapes;
- the top-level `status` and `score` are copies of systems[0]'s.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from scoring.result import geomean_score, system_status
from scoring.result_fields import Fields, Issue, check_fields
from scoring.roofline import MAX_PLAUSIBLE_FRACTION, roofline_point

__all__ = ["Issue", "check_file", "check_result", "read_json"]

# Recorded values are the scorer's own floats, so they agree to the last bit after a JSON round trip;
# the tolerance only admits another JSON writer's rounding.
REL_TOL = 1e-6
EDITED = (
    "a result is written once by the scorer and never edited: restore the file as it was written, "
    "or rescore with `python -m scoring.run`"
)
IMPOSSIBLE = (
    "a fraction of peak above 1.0 is physically impossible (the scorer marks such a shape `rejected` "
    "and never scores it); " + EDITED
)
_ROOFLINE_KEYS = ("fraction", "achieved_tflops", "achieved_gbps", "roofline_ms", "bound")


def read_json(path: Path) -> tuple[Any, list[Issue]]:
    """A file's JSON, or an issue saying why it cannot be read (never an exception)."""
    try:
        return json.loads(Path(path).read_bytes()), []
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, [
            Issue(
                str(path),
                "(file)",
                f"is not readable JSON: {error}",
                "remove the file, or get the result again: it is truncated or not a result file",
            )
        ]
    except RecursionError:
        return None, [Issue(str(path), "(file)", "is nested too deeply to read", "remove the file")]


def check_file(path: Path) -> list[Issue]:
    data, issues = read_json(path)
    return issues or check_result(data, str(path))


def check_result(data: Any, file: str) -> list[Issue]:
    """Every issue of one result dict; an empty list means every value a reader shows is sound."""
    return check_fields(data, file) or check_values(data, file)


def check_values(data: dict, file: str) -> list[Issue]:
    """The value checks; `data` must have passed `check_fields` (this indexes without guarding)."""
    c = Fields(file)
    peak = data["hardware"]["peak"]
    peak_tflops, peak_gbps = peak["tflops"][data["problem"]["precision"]], peak["bandwidth_gbps"]
    for i, system in enumerate(data["systems"]):
        where = f"systems[{i}]"
        for j, shape in enumerate(system["shapes"]):
            _check_roofline(c, shape, f"{where}.shapes[{j}]", peak_tflops, peak_gbps)
        status = system_status(system["shapes"], system.get("audits") or []) if system["shapes"] else "not_available"
        if system["status"] != status:
            c.bad(
                f"{where}.status",
                f"is {system['status']!r}, but its shapes and audits give {status!r} (the most "
                "serious shape status; integrity when an audit failed)",
                EDITED,
            )
        _check_score(c, system["score"], geomean_score(system["shapes"], status), f"{where}.score", status)
    _check_copies(c, data)
    return c.issues


def _check_roofline(c: Fields, shape: dict, at: str, peak_tflops: float, peak_gbps: float) -> None:
    if (
        "fraction" not in shape
        and "bound" not in shape
        and "roofline_ms" not in shape
        and "achieved_tflops" not in shape
        and "achieved_gbps" not in shape
    ):
        return  # not timed: a failed or property-drawn shape (spelled out: this runs for 10,000 files x 40 shapes)
    fraction = shape.get("fraction")
    if fraction is None:
        c.bad(f"{at}.fraction", "is missing beside the shape's other roofline numbers", EDITED)
        return
    if not _in_range(fraction) and not (shape["status"] == "rejected" and math.isfinite(fraction) and fraction > 0):
        c.bad(f"{at}.fraction", _range_problem(fraction), IMPOSSIBLE if fraction > 1 else EDITED)
        return
    if shape.get("timing") is None:
        c.bad(f"{at}.fraction", "is recorded without the timing it is derived from", EDITED)
        return
    roof = roofline_point(shape["flops"], shape["bytes_moved"], shape["timing"]["median_ms"], peak_tflops, peak_gbps)
    derived = (roof.fraction, roof.achieved_tflops, roof.achieved_gbps, roof.roofline_ms, roof.bound)
    recorded = (
        fraction,
        shape.get("achieved_tflops"),
        shape.get("achieved_gbps"),
        shape.get("roofline_ms"),
        shape.get("bound"),
    )
    if recorded == derived:  # the scorer's own floats after a JSON round trip: the usual case, and fast
        return
    for key, value, want in zip(_ROOFLINE_KEYS, recorded, derived):
        agree = value == want if key == "bound" else value is not None and math.isclose(value, want, rel_tol=REL_TOL)
        if not agree:
            c.bad(
                f"{at}.{key}",
                f"is {value!r}, but the shape's flops, bytes_moved and timing.median_ms under "
                f"hardware.peak give {want!r}",
                EDITED,
            )


def _check_score(c: Fields, recorded: dict, derived: dict, where: str, status: str) -> None:
    for key, shapes in (
        ("fraction", "visible and held-out"),
        ("visible_fraction", "visible"),
        ("held_out_fraction", "held-out"),
    ):
        value, want = recorded[key], derived[key]
        if math.isnan(want):  # written as null since 2026-11-27; NaN in older files
            if not _undefined(value):
                c.bad(
                    f"{where}.{key}",
                    f"is {value}, but the system has no {shapes} shapes: expected NaN or null (no "
                    "geomean; null since 2026-11-27)",
                    EDITED,
                )
        elif value is None:
            c.bad(f"{where}.{key}", f"is null, but the system has {shapes} shapes: expected {want!r}", EDITED)
        elif not _in_range(value):
            c.bad(f"{where}.{key}", _range_problem(value), IMPOSSIBLE if value > 1 else EDITED)
        elif not math.isclose(value, want, rel_tol=REL_TOL):
            why = (
                f"the geomean of its {shapes} shapes' fractions is {want!r}"
                if key != "fraction" or status == "passed"
                else f"a system whose shapes and audits give {status!r} scores 0.0"
            )
            c.bad(f"{where}.{key}", f"is {value!r}, but {why}", EDITED)
    gap, want = recorded.get("generalisation_gap"), derived["generalisation_gap"]
    if not _same(gap, want):
        c.bad(f"{where}.generalisation_gap", f"is {gap!r}, but visible minus held-out is {want!r}", EDITED)
    for key in ("shapes_passed", "shapes_total"):
        if recorded[key] != derived[key]:
            c.bad(f"{where}.{key}", f"is {recorded[key]}, but the system's shapes give {derived[key]}", EDITED)


def _check_copies(c: Fields, data: dict) -> None:
    """The top-level status and score repeat systems[0]'s (readers take the headline from either)."""
    solution = data["systems"][0]
    if data["status"] != solution["status"]:
        c.bad("status", f"is {data['status']!r}, but systems[0].status is {solution['status']!r} (a copy)", EDITED)
    for key, value in solution["score"].items():
        if not _same(data["score"].get(key), value):
            c.bad(
                f"score.{key}",
                f"is {data['score'].get(key)!r}, but systems[0].score.{key} is {value!r} (a copy)",
                EDITED,
            )


def _in_range(value: float) -> bool:
    return math.isfinite(value) and 0.0 <= value <= MAX_PLAUSIBLE_FRACTION


def _range_problem(value: float) -> str:
    if not math.isfinite(value):
        return f"is {value}, expected a finite number in 0..{MAX_PLAUSIBLE_FRACTION}"
    side = "above" if value > 0 else "below"
    return f"is {value!r}, {side} the range 0..{MAX_PLAUSIBLE_FRACTION}"


def _undefined(x: Any) -> bool:
    """A value with no number: null (strict JSON, since 2026-11-27) or NaN (older files)."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN and None (a NaN-safe difference is written as null), floats within REL_TOL."""
    if _undefined(a) or _undefined(b):
        return _undefined(a) and _undefined(b)
    if isinstance(a, float) or isinstance(b, float):
        both_numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
        return both_numbers and math.isclose(a, b, rel_tol=REL_TOL)
    return a == b and type(a) is type(b)
