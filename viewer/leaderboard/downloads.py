"""Downloads: every published run as one JSON file and one CSV file.

results.json (`ceiling.site-results/1`): {schema, generated_utc, runs: [{run_id, created_utc, hardware,
problem, agent, verdict, status, score, systems: [{role, name, label, status, score, shapes: [{name,
shape_set, params, status, median_ms, p10_ms, p90_ms, achieved_tflops, achieved_gbps, fraction}]}]}]}.
results.csv: one row per (run, system, shape) with the same numbers (columns in CSV_COLUMNS).
The full result files (checks, seeds, configuration) stay in the repository's results/ folder.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .load import Run

SCHEMA = "ceiling.site-results/1"
_SHAPE_KEYS = ("name", "shape_set", "params", "status", "achieved_tflops", "achieved_gbps", "fraction")
_TIMING_KEYS = ("median_ms", "p10_ms", "p90_ms")
CSV_COLUMNS = ["run_id", "hw", "problem", "row_label", "system", "verdict", "flagged", "shape", "shape_set", "status",
               "median_ms", "p10_ms", "p90_ms", "achieved_tflops", "achieved_gbps", "fraction", "flops", "bytes_moved"]


def _clean(value):
    """NaN and infinities are not JSON: write null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def run_summary(run: Run) -> dict:
    data = run.data
    systems = []
    for system in data["systems"]:
        shapes = []
        for shape in system["shapes"]:
            entry = {k: shape.get(k) for k in _SHAPE_KEYS}
            timing = shape.get("timing") or {}
            entry.update({k: timing.get(k) for k in _TIMING_KEYS})
            shapes.append(_clean(entry))
        systems.append({"role": system["role"], "name": system["name"], "label": system.get("label", ""),
                        "status": system["status"], "score": _clean(system["score"]), "shapes": shapes})
    return {"run_id": run.run_id, "created_utc": data["created_utc"], "hardware": run.hardware,
            "problem": run.problem, "agent": data.get("agent"),
            "verdict": run.annotation.verdict if run.annotation else None,
            "status": data.get("status"), "score": _clean(data.get("score")), "systems": systems}


def write_downloads(out: Path, runs: tuple[Run, ...], trials: pd.DataFrame, shapes: pd.DataFrame,
                    generated_utc: str) -> list[Path]:
    folder = out / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = folder / "results.json", folder / "results.csv"
    document = {"schema": SCHEMA, "generated_utc": generated_utc, "runs": [run_summary(r) for r in runs]}
    json_path.write_text(json.dumps(document, separators=(",", ":"), allow_nan=False), encoding="utf-8")
    labels = trials[["run_id", "row_key", "row_label", "verdict"]]
    table = shapes.merge(labels, on=["run_id", "row_key"], how="left")
    table[CSV_COLUMNS].to_csv(csv_path, index=False, float_format="%.6g")
    return [json_path, csv_path]
