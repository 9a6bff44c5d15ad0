"""The loaded runs as two pandas tables: one row per (run, system), and one per (run, system, shape).

Row identity on the leaderboard: an agent run by our harness is (harness, model, effort); an agent's
solution published elsewhere and re-scored here (`agent.rescored_from`) is its own kind, "rescored",
keyed `rescored:<harness>/<model>/<effort>` and never merged with, or ranked among, our own runs; a run
without an agent whose solution is the problem's `solutions/house.py` is the house kernel; any other
solution scored without an agent (a known-wrong demonstration, a user's file) is its own row, keyed by
its path and shown on problem pages, never ranked; a harness test (a fake or probe agent CLI,
ranking_rules.py) is kind "test", keyed `test:<harness>/<model>/<effort>`, never ranked or plotted; reference lines are keyed by their role (eager,
compiled, library). A verdict that keeps a run off the ranking applies to its solution, not to the
reference lines measured beside it.
"""

from __future__ import annotations

import re

import pandas as pd

from .load import Run
from .provenance import failure_label, is_rescored
from .ranking_rules import is_test_harness, run_reasons, scorer_commit, version_of

# Result status -> the cell's category: pass, fail (wrong, rejected, forbidden), err (crash, timeout),
# integrity (an audit failed), na (the line does not exist for this problem: not an attempt).
CATEGORY = {
    "passed": "pass",
    "incorrect": "fail",
    "rejected": "fail",
    "forbidden_op": "fail",
    "import_error": "err",
    "timeout": "err",
    "runtime_error": "err",
    "not_run": "err",
    "integrity": "integrity",
    "not_available": "na",
}
REFERENCE_LABELS = {"eager": "eager PyTorch", "compiled": "torch.compile", "library": "vendor library"}
KIND_ORDER = {"agent": 0, "house": 1, "reference": 2, "solution": 3, "rescored": 4, "test": 5}
RANKED_KINDS = ("agent", "house", "reference")  # the main ranking; re-scored, known-wrong and test rows stay out
UNPLOTTED_PREFIXES = ("rescored:", "solution:", "test:")  # row keys never in a figure or the best runs

TRIAL_COLUMNS = [
    "hw",
    "hw_label",
    "problem",
    "run_id",
    "created",
    "row_key",
    "row_kind",
    "row_label",
    "slug",
    "system",
    "status",
    "category",
    "fraction",
    "visible_fraction",
    "held_out_fraction",
    "verdict",
    "flagged",
    "wall_s",
    "solution_sha",
    "complete",
    "failure",
    "scorer_commit",
    "scorer_version",
    "run_reasons",
    "published_sha",  # a re-scored run's published file (agent.source.sha256): its newest run stands for it
]
SHAPE_COLUMNS = [
    "hw",
    "problem",
    "run_id",
    "row_key",
    "system",
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
    "flagged",
]


def slugify(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-").lower() or "x"


def row_identity(run: Run, index: int, system: dict) -> tuple[str, str, str, str]:
    """(row_key, kind, label, slug) of a system of a run."""
    if index == 0:
        agent = run.data.get("agent")
        if agent:
            effort = agent.get("effort") or "default"
            parts = (agent["harness"], agent["model"], effort)
            if is_test_harness(agent):
                return (
                    "test:" + "/".join(parts),
                    "test",
                    " · ".join(parts) + " (harness test)",
                    "test-" + slugify("--".join(parts)),
                )
            if is_rescored(agent):
                return (
                    "rescored:" + "/".join(parts),
                    "rescored",
                    " · ".join(parts) + " (re-scored)",
                    "rescored-" + slugify("--".join(parts)),
                )
            return "agent:" + "/".join(parts), "agent", " · ".join(parts), "agent-" + slugify("--".join(parts))
        path = str(system.get("path") or "")
        if path.endswith("solutions/house.py"):
            return "house", "house", "house kernels", "house"
        return f"solution:{path}", "solution", f"{system['name']} ({path})", "solution-" + slugify(path)
    role = system["role"]
    return f"ref:{role}", "reference", REFERENCE_LABELS.get(role, role), "ref-" + slugify(role)


def _covers_visible_and_held_out(system: dict) -> bool:
    """Whether the system was scored on the shapes its headline needs (a shapes=visible run is not)."""
    return {"visible", "held_out"} <= {shape["shape_set"] for shape in system["shapes"]}


def _published_sha(data: dict) -> str:
    source = (data.get("agent") or {}).get("source")
    return str(source.get("sha256") or "") if isinstance(source, dict) else ""


def newest_per_published_file(rescored: pd.DataFrame) -> pd.DataFrame:
    """A file scored again (a re-score with CUTLASS where it looks, say) is judged by its newest run, on whichever
    GPU it ran (as `python -m harnesses.kernelbench.report` does); the older runs stay on disk and on their own
    pages, out of every table and count."""
    if rescored.empty or "published_sha" not in rescored:
        return rescored
    named = rescored[rescored["published_sha"] != ""]
    newest = named.sort_values("created").drop_duplicates("published_sha", keep="last")
    return pd.concat([newest, rescored[rescored["published_sha"] == ""]])  # without a recorded file: each alone


def build_frames(runs: tuple[Run, ...]) -> tuple[pd.DataFrame, pd.DataFrame]:
    trials, shapes = [], []
    for run in runs:
        data = run.data
        hw = run.hardware
        hw_label = data["hardware"]["peak"].get("label") or hw
        verdict = run.annotation.verdict if run.annotation else ""
        off = bool(run.annotation and run.annotation.off_ranking)
        commit = scorer_commit(data)
        version, reasons = version_of(commit), "; ".join(run_reasons(data))
        for index, system in enumerate(data["systems"]):
            key, kind, label, slug = row_identity(run, index, system)
            flagged = off and index == 0
            score = system["score"]
            status = system["status"]
            fraction = float(score["fraction"]) if status == "passed" and score["fraction"] is not None else 0.0
            trials.append(
                (
                    hw,
                    hw_label,
                    run.problem,
                    run.run_id,
                    data["created_utc"],
                    key,
                    kind,
                    label,
                    slug,
                    system["name"],
                    status,
                    CATEGORY.get(status, "err"),
                    fraction,
                    score.get("visible_fraction"),
                    score.get("held_out_fraction"),
                    verdict if index == 0 else "",
                    flagged,
                    system.get("wall_s"),
                    system.get("sha256") or "",
                    _covers_visible_and_held_out(system),
                    failure_label(system.get("failure")),
                    commit[:7],
                    version,
                    reasons,
                    _published_sha(data) if kind == "rescored" else "",
                )
            )
            for shape in system["shapes"]:
                timing = shape.get("timing") or shape  # full results nest timing; slim ones are flat
                shapes.append(
                    (
                        hw,
                        run.problem,
                        run.run_id,
                        key,
                        system["name"],
                        shape["name"],
                        shape["shape_set"],
                        shape["status"],
                        timing.get("median_ms"),
                        timing.get("p10_ms"),
                        timing.get("p90_ms"),
                        shape.get("achieved_tflops"),
                        shape.get("achieved_gbps"),
                        shape.get("fraction"),
                        shape.get("flops"),
                        shape.get("bytes_moved"),
                        flagged,
                    )
                )
    trial_frame = pd.DataFrame.from_records(trials, columns=TRIAL_COLUMNS)
    shape_frame = pd.DataFrame.from_records(shapes, columns=SHAPE_COLUMNS)
    for column in ("fraction", "visible_fraction", "held_out_fraction", "wall_s"):
        trial_frame[column] = pd.to_numeric(trial_frame[column], errors="coerce")
    for column in (
        "median_ms",
        "p10_ms",
        "p90_ms",
        "achieved_tflops",
        "achieved_gbps",
        "fraction",
        "flops",
        "bytes_moved",
    ):
        shape_frame[column] = pd.to_numeric(shape_frame[column], errors="coerce")
    return trial_frame, shape_frame
