"""Tabs for a run directory's artifacts: the solution, the scoring result (with its per-shape
table) and the logs. Every field of the result is optional; what is there is shown."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..coerce import to_json
from .text import clean, esc, fold, highlight_code, pre

LOG_LIMIT_BYTES = 2_000_000  # a log larger than this shows its head and tail


@dataclass(frozen=True)
class Tab:
    key: str
    label: str
    body_html: str


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        return f"(could not read {path.name}: {error})"
    if len(data) > LOG_LIMIT_BYTES:
        half = LOG_LIMIT_BYTES // 2
        data = data[:half] + f"\n… [{len(data) - 2 * half:,} bytes omitted] …\n".encode() + data[-half:]
    return data.decode("utf-8", errors="replace")


def artifact_tabs(run_dir: Path | None) -> list[Tab]:
    if run_dir is None or not Path(run_dir).is_dir():
        return []
    run_dir = Path(run_dir)
    tabs = []
    solution = run_dir / "solution.py"
    if solution.is_file():
        tabs.append(
            Tab(
                "solution",
                "solution.py",
                fold(_read_text(solution), lambda t: highlight_code(t, "solution.py"), "code"),
            )
        )
    result = run_dir / "result.json"
    if result.is_file():
        tabs.append(Tab("result", "result", render_result(result)))
    logs = sorted((run_dir / "logs").glob("*.txt")) if (run_dir / "logs").is_dir() else []
    for i, log in enumerate(logs):
        tabs.append(Tab(f"log-{i}", f"log: {log.name}", fold(_read_text(log), pre, "out")))
    return tabs


def render_result(path: Path) -> str:
    text = _read_text(path)
    try:
        data = json.loads(text)
    except ValueError as error:
        return (
            f'<p class="error">{esc(path.name)} is not valid JSON ({esc(error)}); shown as text.</p>{fold(text, pre)}'
        )
    if not isinstance(data, dict):
        return fold(text, pre)
    rows = [(key, data.get(key)) for key in ("schema", "problem", "agent", "model", "harness") if key in data]
    solution = data.get("solution")
    if isinstance(solution, dict):
        rows += [(f"solution.{k}", v) for k, v in solution.items()]
    for key, value in data.items():
        if isinstance(value, (int, float, str)) and key not in dict(rows) and key != "schema":
            rows.append((key, value))
    score = data.get("score") or data.get("scores")
    if isinstance(score, dict):
        rows += [(f"score.{k}", v) for k, v in score.items() if not isinstance(v, (dict, list))]
    facts = "".join(f"<tr><th>{esc(k)}</th><td>{esc(_cell(v))}</td></tr>" for k, v in rows)
    shapes = data.get("shapes")
    table = _shape_table(shapes) if isinstance(shapes, list) and shapes else ""
    raw = f"<details><summary>raw result.json</summary>{fold(to_json(data), pre)}</details>"
    return f'<table class="facts">{facts}</table>{table}{raw}'


_SHAPE_COLUMNS = ("name", "params", "status", "median_ms", "tflops", "gbps", "fraction")


def _shape_table(shapes: list[Any]) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in _SHAPE_COLUMNS)
    body = []
    for shape in shapes:
        if not isinstance(shape, dict):
            continue
        status = str(shape.get("status", ""))
        cells = "".join(f"<td>{esc(_cell(shape.get(c)))}</td>" for c in _SHAPE_COLUMNS)
        body.append(f'<tr class="status-{esc(status.lower()[:20])}">{cells}</tr>')
    return f'<h3>Per-shape results</h3><table class="shapes"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={clean(str(v))}" for k, v in value.items())
    return str(value)
