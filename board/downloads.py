"""Downloads: every published run as one JSON file and one CSV file.

results.json (`ceiling.site-results/1`): {schema, generated_utc, runs: [{run_id, created_utc, hardware:
{profile, peak}, problem: {name, precision, title}, agent, verdict, status, score, systems: [{role, name,
label, status, score, wall_s, path, sha256, shapes: [{name, shape_set, params, status, median_ms,
p10_ms, p90_ms, achieved_tflops, achieved_gbps, fraction, flops, bytes_moved}]}]}]}; NaN as null.
results.csv: one row per (run, system, shape) with the same numbers (columns in CSV_COLUMNS).
The full result files (checks, seeds, configuration) stay in the repository's results/ folder.

Each run's share of both files (`RunDownload`) is encoded where the run is read, in the build's worker
processes: at 10,000 runs the two files are ~150 MB and ~75 MB, and encoding them in the main process
after every page was its largest serial step. The main process only joins the pieces in run order.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import NamedTuple

from .frame import row_identity
from .load import Run, slim

SCHEMA = "ceiling.site-results/1"
CSV_COLUMNS = [
    "run_id",
    "hw",
    "problem",
    "row_label",
    "system",
    "verdict",
    "flagged",
    "shape",
    "shape_set",
    "status",
    "median_ms",
    "p10_ms",
    "p90_ms",
    "achieved_tflops",
    "achieved_gbps",
    "fraction",
    "flops",
    "bytes_moved",
]
_CSV_NUMBERS = ("median_ms", "p10_ms", "p90_ms", "achieved_tflops", "achieved_gbps", "fraction", "flops", "bytes_moved")


class RunDownload(NamedTuple):
    json: str  # the run's entry of results.json
    csv: str  # the run's rows of results.csv, without the header


def run_summary(run: Run) -> dict:
    """The run's slim data (load.slim: NaN already None) with its verdict."""
    data = run.data if "hardware" in run.data and "config" not in run.data else slim(run.data)
    return dict(data, verdict=run.annotation.verdict if run.annotation else None)


def _csv_number(value) -> str:
    """A number as the CSV writes it (shortest round-trip repr); anything else, NaN and inf as empty."""
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return repr(value)
    return ""


# What csv.writer already writes as _csv_number would (None as empty, numbers by repr); slim() has
# turned NaN and inf into None, so only an odd type (a string, a bool) needs _csv_number.
_CSV_PLAIN = frozenset({int, float, type(None)})


def run_download(run: Run) -> RunDownload:
    summary = run_summary(run)
    verdict = summary["verdict"] or ""
    off_ranking = bool(run.annotation and run.annotation.off_ranking)
    hw, problem = summary["hardware"]["peak"]["key"], summary["problem"]["name"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for index, system in enumerate(summary["systems"]):
        label = row_identity(run, index, system)[2]
        head = [
            run.run_id,
            hw,
            problem,
            label,
            system["name"],
            verdict if index == 0 else "",
            off_ranking and index == 0,
        ]
        for shape in system["shapes"]:
            numbers = [shape[k] for k in _CSV_NUMBERS]
            if not _CSV_PLAIN.issuperset(map(type, numbers)):
                numbers = [_csv_number(v) for v in numbers]
            writer.writerow([*head, shape["name"], shape["shape_set"], shape["status"], *numbers])
    return RunDownload(json.dumps(summary, separators=(",", ":"), allow_nan=False), buffer.getvalue())


def write_downloads(out: Path, runs: tuple[Run, ...], pieces: dict[str, RunDownload], generated_utc: str) -> list[Path]:
    """Join the runs' pieces (computed here for a run that has none) into results.json and results.csv."""
    folder = out / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = folder / "results.json", folder / "results.csv"
    parts = [pieces.get(run.run_id) or run_download(run) for run in runs]
    head = json.dumps({"schema": SCHEMA, "generated_utc": generated_utc}, separators=(",", ":"))[:-1]
    with json_path.open("w", encoding="utf-8") as handle:
        handle.write(f'{head},"runs":[')
        handle.write(",".join(part.json for part in parts))
        handle.write("]}")
    with csv_path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(CSV_COLUMNS) + "\n")
        handle.writelines(part.csv for part in parts)
    return [json_path, csv_path]
