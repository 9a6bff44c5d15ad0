"""The site's long tables, built as HTML strings in Python: a run page's per-shape and audit tables,
and the run list of an agent (or reference system) page.

A run page has one row per shape per system (about 40), and a reference system's page lists every
run that measured it (all 10,000 in the scale benchmark); building rows with f-strings and
html.escape instead of template loops and macro calls keeps the build within its time budget.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from html import escape

import markupsafe
from markupsafe import Markup

from .annotations import VERDICTS
from .load import shown_fraction
from .public_text import error_body, error_line


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


_HEAD = (
    "<thead><tr><th data-sort=\"text\">shape</th><th data-sort=\"text\">set</th><th>params</th>"
    "<th data-sort=\"text\">status</th><th data-sort=\"num\" class=\"num\">median ms</th>"
    "<th data-sort=\"num\" class=\"num\">spread p10–p90 ms</th>"
    "<th data-sort=\"num\" class=\"num\" title=\"the SM clock while the shape's calls were timed (NVML, "
    "read by the scorer): its range, its median for sorting\">SM clock MHz</th>"
    "<th data-sort=\"num\" class=\"num\">TFLOPS</th>"
    "<th data-sort=\"num\" class=\"num\">GB/s</th><th data-sort=\"text\">bound</th>"
    "<th data-sort=\"num\" class=\"num\">fraction</th><th data-sort=\"num\" class=\"num\">normwise err</th></tr></thead>"
)


@lru_cache(maxsize=4096)
def _text(value: str) -> str:
    """Escaped text, cached: shape names, sets, statuses and bounds repeat across every run of a problem."""
    return escape(value)


@lru_cache(maxsize=1024)
def _params_cached(items: tuple) -> str:
    return " ".join(f"{escape(str(k))}={escape(str(v))}" for k, v in items)


def _params(params: dict) -> str:
    items = tuple(params.items())
    try:
        return _params_cached(items)
    except TypeError:  # an unhashable value (a list): not worth caching
        return _params_cached.__wrapped__(items)


def _gpu_state_cell(shape: dict) -> str:
    """The SM clock while the shape's calls were timed (`gpu_state`, scoring/gpu_state.py): its range, with the
    median, the temperature and NVML's clock event reasons in the title; a dash where it was not read."""
    state = shape.get("gpu_state")
    if not isinstance(state, dict):
        return '<td class="num">—</td>'
    clock = state.get("sm_clock_mhz")
    if not isinstance(clock, dict):
        return f'<td class="num" title="{escape(str(state.get("why_not") or "not read"))}">—</td>'
    low, high = clock.get("min"), clock.get("max")
    text = _num(high, "%.0f") if low == high else f'{_num(low, "%.0f")}–{_num(high, "%.0f")}'
    temperature = state.get("temperature_c") if isinstance(state.get("temperature_c"), dict) else {}
    reasons = ", ".join(state.get("clock_event_reasons") or []) or "none"
    title = (
        f'median {_num(clock.get("median"), "%.0f")} MHz over {state.get("samples")} readings; GPU '
        f'{_num(temperature.get("min"), "%.0f")}–{_num(temperature.get("max"), "%.0f")} C; clock event '
        f"reasons: {reasons}"
    )
    return f'<td class="num" data-value="{_value(clock.get("median"))}" title="{escape(title)}">{text}</td>'


def shape_table(system: dict) -> Markup:
    rows = []
    for shape in system.get("shapes") or []:
        timing = shape.get("timing") or {}
        check = shape.get("check") or {}
        status = _text(str(shape.get("status", "")))
        detail = _text(error_line(shape.get("detail") or check.get("detail") or ""))  # the full text: shape_errors
        p10, p90 = timing.get("p10_ms"), timing.get("p90_ms")
        if isinstance(p10, (int, float)) and isinstance(p90, (int, float)):
            spread = f"{p10:.4f}–{p90:.4f}"
            if isinstance(timing.get("rse"), (int, float)) and math.isfinite(timing["rse"]):
                spread += f' <span class="muted small">(rse {100 * timing["rse"]:.2g}%, n={_text(str(timing.get("count")))})</span>'
            spread_value = str(p90 - p10)
        else:
            spread, spread_value = "—", ""
        median, tflops, gbps, fraction = (
            timing.get("median_ms"),
            shape.get("achieved_tflops"),
            shape.get("achieved_gbps"),
            shown_fraction(shape),
        )
        rows.append(
            f"<tr><td>{_text(str(shape.get('name', '')))}</td><td>{_text(str(shape.get('shape_set', '')))}</td>"
            f'<td class="small">{_params(shape.get("params") or {})}</td>'
            f'<td class="status-{status}" title="{detail}">{status}</td>'
            f'<td class="num" data-value="{_value(median)}">{_num(median, "%.4f")}</td>'
            f'<td class="num" data-value="{spread_value}">{spread}</td>'
            f"{_gpu_state_cell(shape)}"
            f'<td class="num" data-value="{_value(tflops)}">{_num(tflops, "%.1f")}</td>'
            f'<td class="num" data-value="{_value(gbps)}">{_num(gbps, "%.0f")}</td>'
            f"<td>{_text(str(shape.get('bound') or ''))}</td>"
            f'<td class="num" data-value="{_value(fraction)}">{_num(fraction, "%.3f")}</td>'
            f'<td class="num">{_num(check.get("normwise_err"), "%.2e")}</td></tr>'
        )
    return Markup(f'<table class="sortable shapes">{_HEAD}<tbody>{"".join(rows)}</tbody></table>')


def shape_errors(system: dict) -> Markup:
    """The full error texts of a system's shapes (tracebacks, paths made relative), collapsed, each text once
    with the shapes it came from; the table's status cells show only its first line."""
    texts: dict[str, list[str]] = {}
    for shape in system.get("shapes") or []:
        body = error_body(shape.get("detail") or (shape.get("check") or {}).get("detail") or "")
        if body:
            texts.setdefault(body, []).append(str(shape.get("name", "")))
    if not texts:
        return Markup("")
    blocks = "".join(
        f'<p class="small">{escape(", ".join(names))}:</p><pre class="doc">{escape(body)}</pre>'
        for body, names in texts.items()
    )
    count = sum(len(names) for names in texts.values())
    return Markup(
        f'<details class="shape-errors"><summary class="small">the full error text of {count} '
        f'shape{"" if count == 1 else "s"}</summary>{blocks}</details>'
    )


def _audited_call(audit: dict) -> str:
    """Where the audit looked: the shape, and for a counter audit which timed call was judged (1-based; "of n"
    and how many the reservoir profiled where the result says, since 7bd445e)."""
    index, made, profiled = audit.get("timed_call_index"), audit.get("timed_calls"), audit.get("calls_profiled")
    shape = audit.get("shape")
    # Some results name the audited shape by its parameters (a dict): shown as the shape tables show params.
    where = " ".join(f"{k}={v}" for k, v in shape.items()) if isinstance(shape, dict) else str(shape or "")
    if isinstance(index, int) and not isinstance(index, bool):
        where += (
            f", timed call {index + 1}"
            + (f" of {made}" if isinstance(made, int) else "")
            + (f" ({profiled} profiled)" if isinstance(profiled, int) else "")
        )
    return where


def audit_table(audits: list) -> Markup:
    rows = []
    for audit in audits:
        if not isinstance(audit, dict):
            continue
        outcome = str(audit.get("outcome", ""))
        css = (
            "status-passed"
            if outcome == "passed"
            else ("status-integrity" if outcome.startswith("failed") else "muted")
        )
        evidence = escape(json.dumps(audit.get("evidence"), indent=1, default=str))
        rows.append(
            f"<tr><td>{escape(str(audit.get('id', '')))}</td><td>{escape(', '.join(map(str, audit.get('classes') or [])))}</td>"
            f"<td>{escape(str(audit.get('expect', '')))}</td><td>{escape(_audited_call(audit))}</td>"
            f"<td class=\"{css}\">{escape(outcome)}</td>"
            f'<td><details><summary class="small">details</summary><pre class="doc">{evidence}</pre></details></td></tr>'
        )
    return Markup(
        "<table><thead><tr><th>audit</th><th>guards</th><th>expect</th><th>shape, call</th>"
        "<th>outcome</th><th>evidence</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


# Below, markupsafe's escape (the templates' own) rather than html.escape: these replace template
# code, and write the same bytes it did.


def badge(verdict: str) -> Markup:
    """A verdict's badge (templates call it through the `badge` macro)."""
    title = markupsafe.escape(VERDICTS.get(verdict, verdict))
    return Markup(
        f'<span class="badge v-{markupsafe.escape(verdict)}" title="{title}">{markupsafe.escape(verdict.replace("_", " "))}</span>'
    )


def _data_value(value) -> str:
    return "" if value is None else markupsafe.escape(str(value))


def run_list_rows(runs: list[dict], agent_columns: bool, root: str) -> Markup:
    """The <tr> rows of an agent page's run list: run, hardware, problem, status (with the failure class where
    the result records one), fraction, [tokens, cost, wall time,] verdict."""
    rows = []
    for r in runs:
        run_id, problem, status = (
            markupsafe.escape(r["run_id"]),
            markupsafe.escape(r["problem"]),
            markupsafe.escape(str(r["status"])),
        )
        failure = r.get("failure")
        failure = (
            f' <span class="fail-class small">({markupsafe.escape(failure)})</span>'
            if isinstance(failure, str) and failure
            else ""
        )
        anchor = f"#{markupsafe.escape(r['anchor'])}" if r["anchor"] else ""
        agent = ""
        if agent_columns:
            tokens = "—" if r["tokens"] is None else f"{r['tokens']:,}"
            agent = (
                f'<td class="num" data-value="{_data_value(r["tokens"])}">{tokens}</td>'
                f'<td class="num" data-value="{_data_value(r["cost"])}">{_num(r["cost"], "%.2f")}</td>'
                f'<td class="num" data-value="{_data_value(r["wall_s"])}">{_num(r["wall_s"], "%.0f")}</td>'
            )
        rows.append(
            f'<tr><td><a href="{root}run/{run_id}.html{anchor}">{run_id}</a></td><td>{markupsafe.escape(r["hw_label"])}</td>'
            f'<td><a href="{root}problem/{problem}.html">{problem}</a></td>\n'
            f'<td class="status-{status}">{status}{failure}</td><td class="num" data-value="{_data_value(r["fraction"])}">'
            f'{_num(r["fraction"], "%.3f")}</td>\n{agent}<td>{badge(r["verdict"]) if r["verdict"] else ""}</td></tr>\n'
        )
    return Markup("".join(rows))


def other_run_rows(records, root: str) -> Markup:
    """The <tr> rows of a board's "other runs" page: run, problem, system, status, fraction, scorer commit, reasons."""
    rows = []
    for r in records:
        run_id, problem, status = (
            markupsafe.escape(r["run_id"]),
            markupsafe.escape(r["problem"]),
            markupsafe.escape(str(r["status"])),
        )
        fraction = r["fraction"] if r["status"] == "passed" else None
        rows.append(
            f'<tr><td><a href="{root}run/{run_id}.html">{run_id}</a></td><td><a href="{root}problem/{problem}.html">{problem}</a></td>'
            f'<td><a href="{root}agent/{markupsafe.escape(r["slug"])}.html">{markupsafe.escape(r["row_label"])}</a></td>'
            f'<td class="status-{status}">{status}</td><td class="num" data-value="{_data_value(fraction)}">{_num(fraction, "%.3f")}</td>'
            f'<td><code>{markupsafe.escape(r["scorer_commit"] or "—")}</code></td><td>{markupsafe.escape(r["reason"])}</td></tr>\n'
        )
    return Markup("".join(rows))
