"""The run index (runs.html: every run, filtered in the browser), the model pages and the score-against-effort
figures, all from one record per run.

A run's record is its solution's trial (frame.py) with the agent's harness, model and effort, what the run
cost where known (tokens, dollars, the agent's wall time: run_info.RunFacts) and, from the ranking rules, ""
or the reasons it is not ranked. The index ships the records as a JSON table (columns once, rows as lists)
and static/runs.js filters and draws them, so 10,000 runs filter without a round trip or a page per filter.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pandas as pd

from .colors import palette
from .frame import slugify

COLUMNS = (
    "run_id",
    "created",
    "hw",
    "problem",
    "system",
    "slug",
    "kind",
    "harness",
    "model",
    "effort",
    "status",
    "score",
    "failure",
    "verdict",
    "ranked",
    "tokens",
    "cost_usd",
    "agent_s",
)
SOURCES = {"agent": "our harness", "rescored": "re-scored", "test": "harness test"}
EFFORT_AXES = (("agent_s", "agent wall time (s)"), ("tokens", "tokens (total)"), ("cost_usd", "cost (US$)"))


@dataclass(frozen=True)
class Model:
    name: str
    slug: str
    runs: tuple[dict, ...]  # records, newest first
    sources: tuple[str, ...]
    passed: int


def run_records(trials: pd.DataFrame, runs, facts: dict) -> list[dict]:
    """One record per run (its solution's trial), newest first."""
    if trials.empty:
        return []
    agents = {run.run_id: run.data.get("agent") or {} for run in runs}
    solutions = trials[trials["row_kind"] != "reference"].sort_values(["created", "run_id"], ascending=[False, True])
    records = []
    for r in solutions[
        [
            "run_id",
            "created",
            "hw_label",
            "problem",
            "row_label",
            "slug",
            "row_kind",
            "status",
            "fraction",
            "failure",
            "verdict",
            "reason",
        ]
    ].itertuples(index=False):
        agent, fact = agents.get(r.run_id, {}), facts.get(r.run_id) or {}
        records.append(
            dict(
                run_id=r.run_id,
                created=r.created[:16].replace("T", " "),
                hw=r.hw_label,
                problem=r.problem,
                system=r.row_label,
                slug=r.slug,
                kind=r.row_kind,
                harness=_text(agent.get("harness")),
                model=_text(agent.get("model")),
                effort=_text(agent.get("effort")),
                status=r.status,
                score=round(float(r.fraction), 4) if r.status == "passed" else 0.0,
                failure=r.failure if isinstance(r.failure, str) else "",
                verdict=r.verdict or "",
                ranked=r.reason or "ranked",
                tokens=_number(fact.get("tokens")),
                cost_usd=_number(fact.get("cost_usd")),
                agent_s=_number(fact.get("wall_s")),
            )
        )
    return records


def index_json(records: list[dict]) -> str:
    """The run index's data: {"columns": [...], "rows": [[...], ...]}, safe inside <script type=application/json>."""
    rows = [[record[c] for c in COLUMNS] for record in records]
    return json.dumps({"columns": COLUMNS, "rows": rows}, separators=(",", ":")).replace("</", "<\\/")


def filter_options(records: list[dict]) -> dict[str, list[str]]:
    keys = {
        "problem": "problem",
        "hw": "hardware",
        "harness": "harness",
        "model": "model",
        "verdict": "verdict",
        "status": "status",
    }
    return {key: sorted({r[key] for r in records if r[key]}) for key in keys}


def models(records: list[dict]) -> list[Model]:
    """One entry per model named by an agent run (ours, re-scored or a harness test), by name."""
    by_model: dict[str, list[dict]] = {}
    for record in records:
        if record["model"]:
            by_model.setdefault(record["model"], []).append(record)
    return [
        Model(
            name,
            "model-" + slugify(name),
            tuple(rows),
            tuple(sorted({SOURCES.get(r["kind"], r["kind"]) for r in rows})),
            sum(r["status"] == "passed" for r in rows),
        )
        for name, rows in sorted(by_model.items(), key=lambda item: item[0].lower())
    ]


def effort_figures(records: list[dict]) -> list[dict]:
    """Score against agent wall time, tokens and cost, one trace per model, for the axes some run records;
    each {"id", "axis", "points", "json"}. Harness tests are left out: their time and tokens are a fake's."""
    agent_runs = [r for r in records if r["model"] and r["kind"] != "test"]
    colours = palette(sorted({r["model"] for r in agent_runs}))
    figures = []
    for key, title in EFFORT_AXES:
        known = [r for r in agent_runs if r[key] is not None and r[key] > 0]
        if not known:
            continue
        traces = []
        for model in sorted({r["model"] for r in known}, key=str.lower):
            points = [r for r in known if r["model"] == model]
            traces.append(
                dict(
                    type="scatter",
                    mode="markers",
                    name=model,
                    x=[r[key] for r in points],
                    y=[r["score"] for r in points],
                    text=[f'{r["run_id"]} · {r["problem"]} · {SOURCES.get(r["kind"], r["kind"])}' for r in points],
                    marker=dict(color=colours[model], size=8, opacity=0.8, line=dict(color="#ffffff", width=1)),
                    hovertemplate="%{text}<br>%{x:.4g}, score %{y:.3f}<extra>" + model + "</extra>",
                )
            )
        layout = dict(
            height=420,
            margin=dict(l=60, r=20, t=20, b=60),
            font=dict(family="system-ui, sans-serif", size=12),
            xaxis=dict(type="log", title=dict(text=title + ", log scale")),
            yaxis=dict(title=dict(text="score (fraction of the roofline, 0 if failed)"), range=[-0.02, 1]),
            legend=dict(orientation="h", y=-0.3),
        )
        figures.append(
            dict(
                id=f"effort-{key}",
                axis=title,
                points=len(known),
                json=json.dumps({"data": traces, "layout": layout}).replace("</", "<\\/"),
            )
        )
    return figures


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _number(value):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if ok else None
