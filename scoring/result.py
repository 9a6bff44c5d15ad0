"""Result files: scoring a system's shapes, and writing the run's JSON once, atomically. Torch-free.

A result file (schema `ceiling.result/1`, documented in docs/results.md) describes itself: problem and
content hash, solution path and hash, agent metadata, hardware and the peak row used, the config, the
seeds, per-shape timings, roofline numbers and checks for the solution and for the reference lines
measured in the same run, audits with their outcomes, and the scores. Readers need neither torch nor
the problem's code.

Files are strict JSON (RFC 8259): a number that is not finite is written as null, never as the `NaN` or
`Infinity` that Python's json module writes by default and that JavaScript's `JSON.parse` and most other
readers refuse. What such a null means is said by the fields beside it (docs/results.md, "Schema"): a score
over a set with no shapes, an error measure of an output holding NaN/Inf (`check.nonfinite_elements`), an
RSE of fewer than 4 calls (`timing.count`). scoring/schema/ceiling.result-1.schema.json is the published
schema; results written before 2026-11-27 held the NaN tokens (scripts/migrate_results_to_strict_json.py
rewrote the committed ones), and every reader still reads them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

from scoring.kernel_name_table import tabulated
from scoring.roofline import MAX_PLAUSIBLE_FRACTION, geomean, roofline_point

SCHEMA = "ceiling.result/1"
SCORED_SETS = ("visible", "held_out")
# When several shapes fail differently, the system's status is the most serious one.
STATUS_SEVERITY = (
    "integrity",
    "forbidden_op",
    "import_error",
    "timeout",
    "runtime_error",
    "incorrect",
    "rejected",
    "not_available",
    "not_run",
    "passed",
)


def sha256_file(path: Path) -> str:
    with open(path, "rb") as f:  # in chunks: a solution file may be any size (scoring/solution_file.py refuses it)
        return hashlib.file_digest(f, "sha256").hexdigest()


def add_roofline(shape: dict, flops: int, bytes_moved: int, peak_tflops: float, peak_gbps: float) -> dict:
    """Attach the roofline numbers to a passed, timed shape; reject physically impossible speed."""
    shape = dict(shape, flops=flops, bytes_moved=bytes_moved)
    timing = shape.get("timing")
    if shape.get("status") != "passed" or not timing:
        return shape
    roof = roofline_point(flops, bytes_moved, timing["median_ms"], peak_tflops, peak_gbps)
    shape.update(roof.as_dict())
    if roof.fraction > MAX_PLAUSIBLE_FRACTION:
        shape["status"] = "rejected"
        shape["detail"] = (
            f"X12: fraction of peak {roof.fraction:.3f} is above {MAX_PLAUSIBLE_FRACTION}: physically "
            "impossible (L2 residency or another exploit, or a wrong peak); not scored"
        )
    return shape


def system_status(shapes: list[dict], audits: list[dict]) -> str:
    statuses = {s["status"] for s in shapes}
    if any(a["outcome"].startswith("failed") for a in audits):
        statuses.add("integrity")
    for status in STATUS_SEVERITY:
        if status in statuses:
            return status
    return "passed"


def geomean_score(shapes: list[dict], status: str) -> dict:
    """Geomean fractions: headline over visible + held-out; property shapes must pass but are not timed."""

    def fractions(sets: tuple[str, ...]) -> list[float]:
        chosen = [s for s in shapes if s["shape_set"] in sets]
        return [s.get("fraction", 0.0) if s["status"] == "passed" else 0.0 for s in chosen]

    visible, held_out = geomean(fractions(("visible",))), geomean(fractions(("held_out",)))
    headline = geomean(fractions(SCORED_SETS)) if status == "passed" else 0.0
    gap = None if (visible != visible or held_out != held_out) else visible - held_out  # NaN-safe
    return {
        "fraction": headline,  # the problem score: 0.0 unless every shape passed and no audit failed
        "visible_fraction": visible,
        "held_out_fraction": held_out,
        "generalisation_gap": gap,  # visible minus held-out geomean: large when shapes were hard-coded
        "shapes_passed": sum(s["status"] == "passed" for s in shapes),
        "shapes_total": len(shapes),
    }


def finite_or_null(value):
    """`value` with every float that is not finite (NaN, +-inf) replaced by None, at any depth: what JSON can hold."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_or_null(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(item) for item in value]
    return value


# A container this many levels below the top (a shape's fields: result > systems > system > shapes > shape >
# field) is written on one line. Those fields' per-call arrays (the judge's clock, the kernel record) are most
# of a result's bytes, and one value per line made the committed results a seventh whitespace, which every
# GPU call carries (its 64 MiB limit counts the tracked tree); every level above keeps one key per line, so a
# result still reads and diffs field by field.
ONE_LINE_DEPTH = 5


def result_text(value, depth: int = 0) -> str:
    """The JSON text of a result (no trailing newline): indent 1 above ONE_LINE_DEPTH, one compact line below.

    Strict: a non-finite float raises ValueError (finite_or_null first)."""
    if depth >= ONE_LINE_DEPTH or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    pad = " " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(key)}: {result_text(item, depth + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
    items = [pad + result_text(item, depth + 1) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"


def write_result(result: dict, out_dir: Path) -> Path:
    """Write `<out_dir>/<run_id>.json` once: temp file, fsync, rename; never overwrite an earlier result.

    Strict JSON: a NaN or infinite float is written as null (finite_or_null), and the dump refuses any other
    (allow_nan=False), so no reader has to accept Python's `NaN` token."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{result['run_id']}.json"
    if path.exists():
        raise FileExistsError(f"{path} exists: results are written once; choose another run id")
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            # Each system's kernel names once, its shapes indexing them (scoring/kernel_name_table.py).
            f.write(result_text(finite_or_null(tabulated(result))) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)  # atomic, and fails instead of replacing if the name appeared meanwhile
    finally:
        os.unlink(tmp)
    return path


def load_result(path: Path) -> dict:
    """Read a result file and check the fields every reader relies on (ValueError names the field)."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{path}: field 'schema' is {data.get('schema')!r}, expected {SCHEMA!r}")
    for key in ("run_id", "problem", "hardware", "systems"):
        if key not in data:
            raise ValueError(f"{path}: field '{key}' is missing")
    return data
