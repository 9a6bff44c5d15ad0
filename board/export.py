"""`python -m board.export`: every result file as one flat table, a row per run x system x shape, in CSV and Parquet.

The site's downloads (downloads.py) carry what its pages show; this table carries what an analysis needs: each
shape parameter in a column of its own (`param_<name>`), the timing's spread (p10/p90, rse, calls), the failure
class, audits, hardware, scorer version, and the agent's harness, model and effort in separate columns. Files are
found, read and checked as the site build does (load.py: a file that is not JSON, names another schema or fails
scoring/result_checks.py is skipped with one line naming it), and old files' bare NaN becomes null like a missing
value. COLUMNS lists the fixed columns in order; the `param_*` columns follow `shape_name`, sorted by name.
A system measured on no shape (a reference line whose library is absent) is one row with the shape columns null,
so that every system of every run is in the table. docs/results.md, "Export", documents every column.
Torch-free; pandas loads only for a real export (help and usage errors answer without it).
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from scoring.options import OptionError, opt, parse, wants_help
from scoring.options import help_text as options_help
from scoring.spec import suggest

FORMATS = ("csv", "parquet")
COMMAND = "python -m board.export"

# (column, pandas dtype), in the table's order; `param_*` columns are inserted after "shape_name".
COLUMNS = (
    ("run_id", "string"),
    ("created_utc", "string"),
    ("result_file", "string"),
    ("hardware", "string"),
    ("hardware_profile", "string"),
    ("gpu_name", "string"),
    ("scorer_version", "string"),
    ("scorer_commit", "string"),
    ("scorer_dirty", "boolean"),
    ("audits", "boolean"),
    ("unranked_reasons", "string"),
    ("verdict", "string"),
    ("problem", "string"),
    ("shape_set", "string"),
    ("shape_name", "string"),
    ("system_role", "string"),
    ("system_name", "string"),
    ("system_label", "string"),
    ("system_kind", "string"),
    ("status", "string"),
    ("system_status", "string"),
    ("failure_class", "string"),
    ("fraction", "Float64"),
    ("median_ms", "Float64"),
    ("p10_ms", "Float64"),
    ("p90_ms", "Float64"),
    ("rse", "Float64"),
    ("calls", "Int64"),
    ("flops", "Int64"),
    ("bytes_moved", "Int64"),
    ("achieved_tflops", "Float64"),
    ("achieved_gbps", "Float64"),
    ("system_score", "Float64"),
    ("system_visible_fraction", "Float64"),
    ("system_held_out_fraction", "Float64"),
    ("agent", "string"),
    ("agent_harness", "string"),
    ("agent_model", "string"),
    ("agent_effort", "string"),
    ("agent_rescored_from", "string"),
    ("run_status", "string"),
    ("run_score", "Float64"),
)
PARAM_PREFIX = "param_"


class ExportError(OptionError):
    pass


@dataclass(frozen=True)
class ExportConfig:
    results: str = opt("results", "folder of result files (<results>/<hardware>/<run_id>.json), found as the site does")
    out: str = opt("ceiling", "the table's path without extension (each format adds its own); a folder: ceiling.*")
    format: str = opt("csv,parquet", "formats to write, comma-separated: csv, parquet (parquet needs pyarrow)")
    hardware: str = opt("", "hardware keys to keep, comma-separated (e.g. h100_sxm); empty = every hardware")
    cpu: bool = opt(False, "also export CPU-profile results (smoke tests whose fractions are not scores)")


def help_text() -> str:
    return (
        options_help(ExportConfig, f"{COMMAND} [key=value ...]")
        + "\n\nWrites one row per run x system x shape; every column is described in docs/results.md, \"Export\"."
    )


def parse_args(argv: list[str]) -> ExportConfig:
    config = parse(ExportConfig, argv, COMMAND, error=ExportError)
    formats(config)
    if not config.out.strip():
        raise ExportError(f"out=: empty; give a path without extension, e.g. out=ceiling; run `{COMMAND} help`")
    return config


def formats(config: ExportConfig) -> list[str]:
    chosen = [f.strip().lower() for f in config.format.split(",") if f.strip()]
    for name in chosen:
        if name not in FORMATS:
            raise ExportError(
                f"format={config.format}: '{name}' is not one of {', '.join(FORMATS)}"
                f"{suggest(name, FORMATS)}; run `{COMMAND} help`"
            )
    if not chosen:
        raise ExportError(f"format=: empty; choose csv, parquet or csv,parquet; run `{COMMAND} help`")
    return list(dict.fromkeys(chosen))


def output_paths(config: ExportConfig) -> dict[str, Path]:
    """{format: file}; an `out` given with one of the formats' extensions loses it (out=x.csv -> x.csv, x.parquet),
    and an existing folder gets the default name inside it (out=/tmp -> /tmp/ceiling.csv)."""
    base = Path(config.out)
    if base.is_dir():
        base = base / ExportConfig().out
    elif base.suffix.lstrip(".").lower() in FORMATS:
        base = base.with_suffix("")
    return {name: base.with_name(f"{base.name}.{name}") for name in formats(config)}


def _finite(value):
    """None for NaN and infinities (old result files hold bare NaN where newer ones hold null)."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _agent_columns(agent) -> dict:
    if not isinstance(agent, dict):
        return {
            "agent": None,
            "agent_harness": None,
            "agent_model": None,
            "agent_effort": None,
            "agent_rescored_from": None,
        }
    harness, model, effort = (
        agent.get(k) if isinstance(agent.get(k), str) else None for k in ("harness", "model", "effort")
    )
    rescored = agent.get("rescored_from") if isinstance(agent.get("rescored_from"), str) else None
    label = "/".join(part or "?" for part in (harness, model, effort or "default"))
    return {
        "agent": label,
        "agent_harness": harness,
        "agent_model": model,
        "agent_effort": effort,
        "agent_rescored_from": rescored,
    }


def _shape_columns(shape: dict | None) -> dict:
    from .load import shown_fraction

    if shape is None:
        return {"shape_set": None, "shape_name": None, "status": None}
    timing = shape.get("timing") if isinstance(shape.get("timing"), dict) else {}
    row = {
        "shape_set": shape.get("shape_set"),
        "shape_name": shape.get("name"),
        "status": shape.get("status"),
        "fraction": shown_fraction(shape),
        "calls": timing.get("count"),
    }
    row.update((key, _finite(timing.get(key))) for key in ("median_ms", "p10_ms", "p90_ms", "rse"))
    row.update((key, _finite(shape.get(key))) for key in ("flops", "bytes_moved", "achieved_tflops", "achieved_gbps"))
    params = shape.get("params") if isinstance(shape.get("params"), dict) else {}
    row.update((PARAM_PREFIX + str(name), _finite(value)) for name, value in params.items())
    return row


def run_rows(run) -> list[dict]:
    """The rows of one loaded run (board/load.Run): one per system x shape, or per system without shapes."""
    from scoring.failure_class import reread_failure, tolerance_normwise

    from .frame import row_identity
    from .ranking_rules import run_reasons, scorer_commit, version_of

    data = run.data
    ceiling = data.get("ceiling") if isinstance(data.get("ceiling"), dict) else {}
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    score = data.get("score") if isinstance(data.get("score"), dict) else {}
    commit = scorer_commit(data)
    run_columns = {
        "run_id": run.run_id,
        "created_utc": data.get("created_utc"),
        "result_file": run.path.as_posix(),
        "hardware": run.hardware,
        "hardware_profile": data["hardware"].get("profile"),
        "gpu_name": data["hardware"].get("name"),
        "scorer_version": version_of(commit) or None,
        "scorer_commit": commit or None,
        "scorer_dirty": ceiling.get("dirty"),
        "audits": config.get("audits"),
        "unranked_reasons": "; ".join(run_reasons(data)) or None,
        "verdict": run.annotation.verdict if run.annotation else None,
        "problem": run.problem,
        "run_status": data.get("status"),
        "run_score": _finite(score.get("fraction")),
        **_agent_columns(data.get("agent")),
    }
    bound = tolerance_normwise(data.get("problem"))
    rows = []
    for index, system in enumerate(data["systems"]):
        failure = reread_failure(system, bound)
        system_score = system.get("score") if isinstance(system.get("score"), dict) else {}
        system_columns = {
            "system_role": system.get("role"),
            "system_name": system.get("name"),
            "system_label": system.get("label"),
            "system_kind": row_identity(run, index, system)[1],
            "system_status": system.get("status"),
            "failure_class": failure.get("class") if isinstance(failure, dict) else None,
            **{
                column: _finite(system_score.get(key))
                for column, key in (
                    ("system_score", "fraction"),
                    ("system_visible_fraction", "visible_fraction"),
                    ("system_held_out_fraction", "held_out_fraction"),
                )
            },
        }
        for shape in system.get("shapes") or [None]:
            rows.append({**run_columns, **system_columns, **_shape_columns(shape)})
    return rows


def _param_dtype(values: list) -> str:
    present = [v for v in values if v is not None]
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "Int64"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "Float64"
    return "boolean" if all(isinstance(v, bool) for v in present) else "string"


def build_table(runs):
    """The runs as one pandas DataFrame with COLUMNS' dtypes (nullable: absent values are <NA>, never "nan")."""
    import pandas as pd

    rows = [row for run in runs for row in run_rows(run)]
    params = sorted({key for row in rows for key in row if key.startswith(PARAM_PREFIX)}, key=lambda k: (k.lower(), k))
    names = [name for name, _ in COLUMNS]
    at = names.index("shape_name") + 1
    order = names[:at] + params + names[at:]
    dtypes = dict(COLUMNS)
    columns = {}
    for name in order:
        values = [row.get(name) for row in rows]
        dtype = dtypes.get(name) or _param_dtype(values)
        if dtype == "string":  # "" is absent too (CSV cannot tell it from null); a list or table: its JSON text
            values = [None if v == "" else v if v is None or isinstance(v, str) else json.dumps(v) for v in values]
        columns[name] = pd.array(values, dtype=dtype)
    return pd.DataFrame(columns, columns=order)


def _write_atomic(path: Path, write) -> None:
    """Write through a temporary file beside `path`, then rename: a reader never sees half a table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def export(config: ExportConfig, warn=lambda line: print(line, file=sys.stderr)) -> tuple[dict[str, Path], int, int]:
    """Write the table; returns ({format: file}, rows, runs). Raises ExportError for a usage error."""
    from .load import load_runs

    results = Path(config.results)
    if not results.is_dir():
        raise ExportError(
            f"results={config.results}: no such folder; give the folder of result files, e.g. results=results"
        )
    loaded = load_runs(results, None, include_cpu=config.cpu)
    for issue in _first_issue_per_file(loaded.issues):
        warn(f"skipped: {issue}")
    runs = loaded.runs
    wanted = [key.strip() for key in config.hardware.split(",") if key.strip()]
    if wanted:
        found = sorted({run.hardware for run in runs})
        for key in wanted:
            if key not in found:
                raise ExportError(
                    f"hardware={config.hardware}: no result has hardware key '{key}'{suggest(key, found)}"
                    f" (found: {', '.join(found) or 'none'})"
                )
        runs = tuple(run for run in runs if run.hardware in wanted)
    table = build_table(runs)
    paths = output_paths(config)
    for name, path in paths.items():
        if name == "csv":
            _write_atomic(path, lambda p: table.to_csv(p, index=False))
        else:
            _write_atomic(path, lambda p: table.to_parquet(p, index=False, engine="pyarrow"))
    return paths, len(table), len(runs)


def _first_issue_per_file(issues) -> list[str]:
    """One line per bad file: its first problem, and how many more it has."""
    by_file: dict[str, list] = {}
    for issue in issues:
        by_file.setdefault(issue.file, []).append(issue)
    return [
        f"{found[0]}" + (f" (and {len(found) - 1} more problem(s) in the file)" if len(found) > 1 else "")
        for found in by_file.values()
    ]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if wants_help(argv):
        print(help_text())
        return 0
    try:
        config = parse_args(argv)
        if "parquet" in formats(config):
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                print(
                    "error: format=parquet needs pyarrow: pip install -e '.[site]' (or pip install pyarrow), "
                    "or write CSV only with format=csv",
                    file=sys.stderr,
                )
                return 1
        paths, rows, runs = export(config)
    except ExportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(f"wrote {', '.join(p.as_posix() for p in paths.values())}: {rows} row(s) from {runs} run(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
