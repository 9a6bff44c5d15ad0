"""Downloads: every published run as one JSON file and one CSV file.

results.json (`ceiling.site-results/1`): {schema, generated_utc, runs: [{run_id, created_utc, hardware:
{profile, peak}, problem: {name, precision, title}, agent, verdict, status, score, systems: [{role, name,
label, status, score, wall_s, path, sha256, shapes: [{name, shape_set, params, status, median_ms,
p10_ms, p90_ms, achieved_tflops, achieved_gbps, fraction, flops, bytes_moved}]}]}]}; NaN as null.
results.csv: one row per (run, system, shape) with the same numbers (columns in CSV_COLUMNS).
The full result files (checks, seeds, configuration) stay in the repository's results/ folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .load import Run, slim

SCHEMA = "ceiling.site-results/1"
CSV_COLUMNS = ["run_id", "hw", "problem", "row_label", "system", "verdict", "flagged", "shape", "shape_set", "status",
               "median_ms", "p10_ms", "p90_ms", "achieved_tflops", "achieved_gbps", "fraction", "flops", "bytes_moved"]


def run_summary(run: Run) -> dict:
    """The run's slim data (load.slim: NaN already None) with its verdict."""
    data = run.data if "hardware" in run.data and "config" not in run.data else slim(run.data)
    return dict(data, verdict=run.annotation.verdict if run.annotation else None)


def write_downloads(out: Path, runs: tuple[Run, ...], trials: pd.DataFrame, shapes: pd.DataFrame,
                    generated_utc: str) -> list[Path]:
    folder = out / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = folder / "results.json", folder / "results.csv"
    document = {"schema": SCHEMA, "generated_utc": generated_utc, "runs": [run_summary(r) for r in runs]}
    json_path.write_text(json.dumps(document, separators=(",", ":"), allow_nan=False), encoding="utf-8")
    labels = trials[["run_id", "row_key", "row_label", "verdict"]]
    table = shapes.merge(labels, on=["run_id", "row_key"], how="left")
    table[CSV_COLUMNS].to_csv(csv_path, index=False)
    return [json_path, csv_path]
