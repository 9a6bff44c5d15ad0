"""The published H100 runs of a kernelbench.com clone: who wrote each solution file and what they reported.

Read from the clone the user points to (never from the network):
  benchmarks/hard/results/leaderboard.<deck>.json   models x problems: run id, correct, peak fraction,
                                                    annotation verdict, elapsed seconds, output tokens
  public/runs/<deck>/<run_id>_solution.py.txt       the agent's solution file as published
  public/data/rundetail/<run_id>.json               (when present) their failure reason
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = "github.com/Infatoshi/kernelbench.com"
RESCORED_FROM = "kernelbench.com"  # agent.rescored_from of every result scored from their files
DECK = "h100"
# Their problem folder -> ours. The seven-problem decks share six problems.
THEIR_PROBLEMS = {
    "01_fp8_gemm": "fp8_gemm",
    "02_kda_cutlass": "kda",
    "03_paged_attention": "paged_attention",
    "05_topk_bitonic": "topk",
    "06_sonic_moe_swiglu": "moe_swiglu",
    "07_w4a16_gemm": "w4a16_gemm",
}
_RUN_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})_")


class CatalogError(Exception):
    """The clone is not one this importer can read; the message names the path and the fix."""


@dataclass(frozen=True)
class PublishedRun:
    run_id: str
    their_problem: str
    problem: str  # ours
    harness: str
    model: str
    effort: str
    solution_path: str  # relative to the clone
    published: dict  # their verdict: correct, peak_fraction, annotation_verdict, ...

    @property
    def run_date(self) -> str:
        """The date and time in the run id (their clock, no zone given)."""
        match = _RUN_DATE.match(self.run_id)
        return "{}-{}-{} {}:{}:{}".format(*match.groups()) if match else ""


def clone_commit(clone: Path) -> str:
    """The clone's HEAD commit, or "unknown (not a git work tree)"."""
    try:
        out = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (git not available)"
    return out.stdout.strip() if out.returncode == 0 else "unknown (not a git work tree)"


def _leaderboard(clone: Path) -> dict:
    path = clone / "benchmarks" / "hard" / "results" / f"leaderboard.{DECK}.json"
    if not path.is_file():
        raise CatalogError(f"{path}: not found; path= must be a clone of {REPOSITORY} (git clone https://{REPOSITORY})")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CatalogError(f"{path}: not readable as JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        found = data.get("schema_version") if isinstance(data, dict) else "?"
        raise CatalogError(
            f"{path}: field 'models' missing or not a list; this importer reads schema_version 1 "
            f"of their leaderboard (found {found})"
        )
    return data


def _detail(clone: Path, run_id: str) -> dict:
    path = clone / "public" / "data" / "rundetail" / f"{run_id}.json"
    try:
        return json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}


def published_runs(clone: Path) -> list[PublishedRun]:
    """Every run of the deck's leaderboard whose solution file is published, ordered by problem and run id."""
    board = _leaderboard(clone)
    hardware = (board.get("hardware") or {}).get("name", "")
    runs = []
    for entry in board["models"]:
        if not isinstance(entry, dict):
            continue
        for their_problem, result in (entry.get("results") or {}).items():
            if their_problem not in THEIR_PROBLEMS or not isinstance(result, dict) or not result.get("run_id"):
                continue
            run_id = str(result["run_id"])
            relative = f"public/runs/{DECK}/{run_id}_solution.py.txt"
            if not (clone / relative).is_file():
                continue  # listed without a published file: nothing to re-score
            detail = _detail(clone, run_id)
            published = {
                key: result.get(key)
                for key in ("correct", "peak_fraction", "annotation_verdict", "elapsed_seconds", "output_tokens")
            }
            published.update(
                hardware=hardware, board_label=entry.get("label"), failure_reason=detail.get("failure_reason")
            )
            runs.append(
                PublishedRun(
                    run_id=run_id,
                    their_problem=their_problem,
                    problem=THEIR_PROBLEMS[their_problem],
                    harness=str(entry.get("harness") or ""),
                    model=str(entry.get("model") or ""),
                    effort=str(entry.get("effort") or ""),
                    solution_path=relative,
                    published=published,
                )
            )
    return sorted(runs, key=lambda r: (r.problem, r.run_id))
