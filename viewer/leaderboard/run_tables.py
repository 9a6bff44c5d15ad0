"""The per-shape and audit tables of a run page, built as HTML strings in Python.

A run page has one row per shape per system (about 40); building them with f-strings and
html.escape instead of template macros keeps 10,000 run pages within the build's time budget.
"""

from __future__ import annotations

import json
import math
from html import escape

from markupsafe import Markup


def _num(value, spec: str) -> str:
    if value is None or isinstance(value, bool) or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    try:
        return spec % value
    except (TypeError, ValueError):
        return escape(str(value))


def _value(value) -> str:
    if value is None or isinstance(value, bool) or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return str(value) if isinstance(value, (int, float)) else ""


_HEAD = ("<thead><tr><th data-sort=\"text\">shape</th><th data-sort=\"text\">set</th><th>params</th>"
         "<th data-sort=\"text\">status</th><th data-sort=\"num\" class=\"num\">median ms</th>"
         "<th data-sort=\"num\" class=\"num\">spread p10–p90 ms</th><th data-sort=\"num\" class=\"num\">TFLOPS</th>"
         "<th data-sort=\"num\" class=\"num\">GB/s</th><th data-sort=\"text\">bound</th>"
         "<th data-sort=\"num\" class=\"num\">fraction</th><th data-sort=\"num\" class=\"num\">normwise err</th></tr></thead>")


def shape_table(system: dict) -> Markup:
    rows = []
    for shape in system.get("shapes") or []:
        timing = shape.get("timing") or {}
        check = shape.get("check") or {}
        params = " ".join(f"{escape(str(k))}={escape(str(v))}" for k, v in (shape.get("params") or {}).items())
        status = escape(str(shape.get("status", "")))
        detail = escape(str(shape.get("detail") or check.get("detail") or ""))
        p10, p90 = timing.get("p10_ms"), timing.get("p90_ms")
        if isinstance(p10, (int, float)) and isinstance(p90, (int, float)):
            spread = f"{p10:.4f}–{p90:.4f}"
            if isinstance(timing.get("rse"), (int, float)) and math.isfinite(timing["rse"]):
                spread += f' <span class="muted small">(rse {100 * timing["rse"]:.2g}%, n={escape(str(timing.get("count")))})</span>'
            spread_value = str(p90 - p10)
        else:
            spread, spread_value = "—", ""
        rows.append(
            f"<tr><td>{escape(str(shape.get('name', '')))}</td><td>{escape(str(shape.get('shape_set', '')))}</td>"
            f'<td class="small">{params}</td><td class="status-{status}" title="{detail}">{status}</td>'
            f'<td class="num" data-value="{_value(timing.get("median_ms"))}">{_num(timing.get("median_ms"), "%.4f")}</td>'
            f'<td class="num" data-value="{spread_value}">{spread}</td>'
            f'<td class="num" data-value="{_value(shape.get("achieved_tflops"))}">{_num(shape.get("achieved_tflops"), "%.1f")}</td>'
            f'<td class="num" data-value="{_value(shape.get("achieved_gbps"))}">{_num(shape.get("achieved_gbps"), "%.0f")}</td>'
            f"<td>{escape(str(shape.get('bound') or ''))}</td>"
            f'<td class="num" data-value="{_value(shape.get("fraction"))}">{_num(shape.get("fraction"), "%.3f")}</td>'
            f'<td class="num">{_num(check.get("normwise_err"), "%.2e")}</td></tr>')
    return Markup(f'<table class="sortable shapes">{_HEAD}<tbody>{"".join(rows)}</tbody></table>')


def audit_table(audits: list) -> Markup:
    rows = []
    for audit in audits:
        if not isinstance(audit, dict):
            continue
        outcome = str(audit.get("outcome", ""))
        css = "status-passed" if outcome == "passed" else ("status-integrity" if outcome.startswith("failed") else "muted")
        evidence = escape(json.dumps(audit.get("evidence"), indent=1, default=str))
        rows.append(f"<tr><td>{escape(str(audit.get('id', '')))}</td><td>{escape(', '.join(map(str, audit.get('classes') or [])))}</td>"
                    f"<td>{escape(str(audit.get('expect', '')))}</td><td class=\"{css}\">{escape(outcome)}</td>"
                    f'<td><details><summary class="small">details</summary><pre class="doc">{evidence}</pre></details></td></tr>')
    return Markup("<table><thead><tr><th>audit</th><th>guards</th><th>expect</th><th>outcome</th><th>evidence</th></tr>"
                  f"</thead><tbody>{''.join(rows)}</tbody></table>")
