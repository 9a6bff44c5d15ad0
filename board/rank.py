"""The leaderboard of one hardware: a cell per (row, problem), an aggregate per row, the ranking.

A cell is the median over the row's trials of that problem of the headline fraction, a failed trial
counting as zero; its spread is the range of those fractions. The row's aggregate is the mean of its
cells over every problem on that hardware, a failure or a missing attempt counting as zero, so a row
cannot rise by skipping what it fails. Its pass count is the problems with at least one passing
trial. Runs whose verdict keeps them off the ranking, and lines that do not exist for a problem
(`not_available`), are shown but never counted.

Only agents run by our harness, the house kernels and the reference lines are rows of the ranking
(`frame.RANKED_KINDS`), and only from runs that meet the ranking rules (ranking_rules.py: one scorer
version per board, audits on, a clean checkout, every shape set, the newest house code); every other
run is in `Board.other_runs` with its reasons. Runs re-scored from another site's published solutions are listed apart, per
problem (`Board.rescored`), and known-wrong demonstrations only on their problem's page; their runs'
reference lines, measured here like any other, still count for the reference rows.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

import pandas as pd

from .frame import KIND_ORDER, RANKED_KINDS, newest_per_published_file
from .ranking_rules import declared_versions, version_detail

CELL_LABELS = {"fail": "FAIL", "err": "ERR", "integrity": "INTEGRITY", "na": "n/a", "flagged": "flagged"}


@dataclass(frozen=True)
class Cell:
    problem: str
    value: float | None  # median fraction over ranked trials (failure = 0); None: nothing ranked
    trials: int  # ranked trials
    passes: int
    low: float | None
    high: float | None
    label: str  # what the cell shows: "0.528", FAIL, ERR, INTEGRITY, n/a, flagged, or "" (no run)
    category: str  # pass, fail, err, integrity, na, flagged, none
    flagged: int  # trials kept off the ranking
    verdicts: tuple[str, ...]  # verdicts of the cell's runs (badges)
    run_id: str  # the representative (median) run: what the cell links to
    title: str  # hover text: every trial
    failure: str = ""  # the failure class of the representative run when the cell did not pass


@dataclass(frozen=True)
class Row:
    key: str
    kind: str  # agent, house, reference (frame.RANKED_KINDS)
    label: str
    slug: str
    cells: tuple[Cell, ...]
    aggregate: float | None  # None: nothing ranked (every run flagged)
    passes: int
    problems: int
    rank: int | None


@dataclass(frozen=True)
class Scope:
    """What the board ranks: one scorer version, the commits and dates of the runs its cells count."""

    version: str  # "" when no run on this hardware can be ranked
    commits: tuple[str, ...]
    first_utc: str
    last_utc: str
    ranked_runs: int
    evidence: str  # why the version's commits are declared equivalent (scorer_versions.toml), or ""


@dataclass(frozen=True)
class Board:
    hw: str
    hw_label: str
    problems: tuple[str, ...]
    rows: tuple[Row, ...]
    runs: int
    rescored: tuple[dict, ...] = ()  # re-scored runs (trial records), by problem then fraction: never ranked
    scope: Scope = Scope("", (), "", "", 0, "")
    other_runs: tuple[dict, ...] = ()  # runs whose solution no cell counts, with their reasons, newest first
    reason_counts: tuple[tuple[str, int], ...] = ()  # (first reason, runs), most common first


def build_boards(trials: pd.DataFrame) -> list[Board]:
    """One board per hardware; `trials` may already carry `reason` (annotate), else it is computed here."""
    return [_board(str(hw), frame) for hw, frame in trials.groupby("hw", sort=True)]


def annotate(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials with `reason` (with_reasons), each hardware against its own current scorer version."""
    if trials.empty:
        return trials.assign(reason=pd.Series(dtype=str))
    return pd.concat([with_reasons(frame, current_version(frame)) for _, frame in trials.groupby("hw", sort=False)])


def current_version(frame: pd.DataFrame) -> str:
    """The scorer version a board ranks, among its runs with no run-level reason (ranking_rules.py): the
    newest declared version (scorer_versions.toml lists them newest first) that has such runs, else the
    version of the newest such run; "" when no run qualifies."""
    eligible = frame[(frame["run_reasons"] == "") & (frame["scorer_version"] != "")]
    if eligible.empty:
        return ""
    present = set(eligible["scorer_version"])
    for version in declared_versions():
        if version.name in present:
            return version.name
    return str(eligible.sort_values("created")["scorer_version"].iloc[-1])


def with_reasons(frame: pd.DataFrame, version: str) -> pd.DataFrame:
    """Every trial with `reason`: "" when its cell may count it, else why not (the first reason is the one
    filtered on; a verdict that keeps a run off is handled by the cell, which still shows it)."""
    house = (frame["row_kind"] == "house") & (frame["run_reasons"] == "") & (frame["scorer_version"] == version)
    newest = frame[house].sort_values("created").groupby("problem")["solution_sha"].last()
    reasons = []
    for kind, run_reasons, scorer, status, complete, sha, problem, flagged, verdict in zip(
        frame["row_kind"],
        frame["run_reasons"],
        frame["scorer_version"],
        frame["status"],
        frame["complete"],
        frame["solution_sha"],
        frame["problem"],
        frame["flagged"],
        frame["verdict"],
    ):
        found = [run_reasons] if run_reasons else []
        if kind == "rescored":
            found.insert(0, "re-scored from another site (listed apart)")
        elif kind == "solution":
            found.insert(0, "known-wrong demonstration (on its problem page)")
        if scorer and scorer != version and not run_reasons:
            found.append(f"scorer version {scorer}, not the board's ({version or 'none'})")
        if not found and status == "passed" and not complete:
            found.append("passed on a subset of the shapes (no headline)")
        if not found and kind == "house" and sha != newest.get(problem, sha):
            found.append("an older house kernel (superseded by newer code)")
        if not found and flagged:
            found.append(f"verdict {verdict} (off the ranking)")
        reasons.append("; ".join(found))
    return frame.assign(reason=reasons)


def board_trials(frame: pd.DataFrame) -> pd.DataFrame:
    """The trials the board's cells aggregate: ranked kinds with no reason against them (ranking_rules.py,
    `with_reasons`), plus runs kept off by a verdict, which a cell shows but does not count."""
    frame = with_reasons(frame, current_version(frame))
    counted = (frame["reason"] == "") | (frame["flagged"] & (frame["reason"].str.startswith("verdict ")))
    return frame[counted & frame["row_kind"].isin(RANKED_KINDS)]


def _scope(frame: pd.DataFrame, version: str) -> Scope:
    ranked = frame[(frame["reason"] == "") & frame["row_kind"].isin(RANKED_KINDS)]
    if ranked.empty:
        return Scope("", (), "", "", 0, "")
    detail = version_detail(version)
    commits = tuple(sorted(set(ranked["scorer_commit"])))
    created = sorted(ranked["created"])
    return Scope(version, commits, created[0], created[-1], int(ranked["run_id"].nunique()), detail.evidence)


def _other_runs(frame: pd.DataFrame) -> tuple[tuple[dict, ...], tuple[tuple[str, int], ...]]:
    """The runs whose solution no cell counts, newest first, each with its reasons; and how many per first reason."""
    others = frame[(frame["row_kind"] != "reference") & (frame["reason"] != "")]
    others = others.sort_values(["created", "run_id"], ascending=[False, True])
    records = tuple(
        others[
            [
                "run_id",
                "problem",
                "row_label",
                "row_kind",
                "slug",
                "status",
                "fraction",
                "created",
                "verdict",
                "scorer_commit",
                "reason",
            ]
        ].to_dict("records")
    )
    counts = Counter(r["reason"].split("; ")[0] for r in records)
    return records, tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _board(hw: str, all_trials: pd.DataFrame) -> Board:
    version = current_version(all_trials)
    reasoned = all_trials if "reason" in all_trials else with_reasons(all_trials, version)
    counted = (reasoned["reason"] == "") | (reasoned["flagged"] & reasoned["reason"].str.startswith("verdict "))
    frame = reasoned[counted]
    problems = tuple(sorted(frame[frame["row_kind"].isin(RANKED_KINDS)]["problem"].unique()))
    rescored = newest_per_published_file(all_trials[all_trials["row_kind"] == "rescored"])
    rescored = rescored.sort_values(["problem", "fraction", "row_label", "run_id"], ascending=[True, False, True, True])
    frame = frame[frame["row_kind"].isin(RANKED_KINDS)]
    ranked = frame[~frame["flagged"] & (frame["category"] != "na")]
    if ranked.empty:
        aggregates = {}
    else:
        medians = ranked.groupby(["row_key", "problem"])["fraction"].median().unstack("problem")
        medians = medians.reindex(columns=list(problems)).fillna(0.0)
        aggregates = medians.mean(axis=1).to_dict()
    rows = []
    by_cell = {key: group for key, group in frame.groupby(["row_key", "problem"], sort=False)}
    empty = frame.iloc[0:0]
    for key, rows_frame in frame.groupby("row_key", sort=False):
        first = rows_frame.iloc[0]
        cells = tuple(_cell(p, by_cell.get((key, p), empty)) for p in problems)
        rows.append(
            Row(
                str(key),
                first["row_kind"],
                first["row_label"],
                first["slug"],
                cells,
                aggregates.get(key),
                sum(c.passes > 0 for c in cells),
                len(problems),
                None,
            )
        )
    rows.sort(key=lambda r: (r.aggregate is None, -(r.aggregate or 0.0), KIND_ORDER[r.kind], r.label))
    numbered, rank = [], 0
    for row in rows:
        if row.aggregate is not None:
            rank += 1
        numbered.append(Row(**{**row.__dict__, "rank": rank if row.aggregate is not None else None}))
    others, reason_counts = _other_runs(reasoned)
    return Board(
        hw,
        str(all_trials["hw_label"].iloc[0]),
        problems,
        tuple(numbered),
        int(all_trials["run_id"].nunique()),
        tuple(rescored.to_dict("records")),
        _scope(reasoned, version),
        others,
        reason_counts,
    )


def _cell(problem: str, trials: pd.DataFrame) -> Cell:
    if trials.empty:
        return Cell(problem, None, 0, 0, None, None, "", "none", 0, (), "", "no run")
    failures = (
        [f if isinstance(f, str) else "" for f in trials["failure"]] if "failure" in trials else [""] * len(trials)
    )
    records = list(
        zip(
            trials["run_id"],
            trials["status"],
            trials["category"],
            trials["fraction"],
            trials["verdict"],
            trials["flagged"],
            failures,
        )
    )
    verdicts = tuple(sorted({r[4] for r in records if r[4]}))
    flagged = sum(1 for r in records if r[5])
    lines = [
        f"{r[0]}: {r[1]}"
        + (f" {r[3]:.3f}" if r[1] == "passed" else "")
        + (f" ({r[6]})" if r[6] else "")
        + (f" [{r[4]}]" if r[4] else "")
        for r in records[:12]
    ]
    title = f"{len(records)} run{'s' if len(records) != 1 else ''}:\n" + "\n".join(lines)
    if len(records) > 12:
        title += f"\n... and {len(records) - 12} more"
    ranked = sorted((r for r in records if not r[5] and r[2] != "na"), key=lambda r: r[3])
    if not ranked:
        category = "flagged" if flagged else "na"
        return Cell(
            problem,
            None,
            0,
            0,
            None,
            None,
            CELL_LABELS[category],
            category,
            flagged,
            verdicts,
            records[len(records) // 2][0],
            title,
        )
    fractions = [r[3] for r in ranked]
    passes = sum(1 for r in ranked if r[2] == "pass")
    value = statistics.median(fractions)
    middle = ranked[(len(ranked) - 1) // 2]
    if passes:
        category, label = "pass", f"{value:.3f}"
    else:
        counts = Counter(r[2] for r in ranked)
        category = max(sorted(counts), key=lambda c: counts[c])
        label = CELL_LABELS.get(category, category)
    return Cell(
        problem,
        value,
        len(ranked),
        passes,
        fractions[0],
        fractions[-1],
        label,
        category,
        flagged,
        verdicts,
        middle[0],
        title,
        "" if passes else middle[6],
    )
