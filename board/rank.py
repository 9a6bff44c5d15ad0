"""The leaderboard of one hardware: a cell per (row, problem), an aggregate per row, the ranking.

A cell is the median over the row's trials of that problem of the headline fraction, a failed trial
counting as zero; its spread is the range of those fractions. The row's aggregate is the mean of its
cells over every problem on that hardware, a failure or a missing attempt counting as zero, so a row
cannot rise by skipping what it fails. Its pass count is the problems with at least one passing
trial. Runs whose verdict keeps them off the ranking, and lines that do not exist for a problem
(`not_available`), are shown but never counted.

Only agents run by our harness, the house kernels and the reference lines are rows of the ranking
(`frame.RANKED_KINDS`). Runs re-scored from another site's published solutions are listed apart, per
problem (`Board.rescored`), and known-wrong demonstrations only on their problem's page; their runs'
reference lines, measured here like any other, still count for the reference rows.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

import pandas as pd

from .frame import KIND_ORDER, RANKED_KINDS

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
class Board:
    hw: str
    hw_label: str
    problems: tuple[str, ...]
    rows: tuple[Row, ...]
    runs: int
    rescored: tuple[dict, ...] = ()  # re-scored runs (trial records), by problem then fraction: never ranked


def build_boards(trials: pd.DataFrame) -> list[Board]:
    boards = []
    for hw, frame in trials.groupby("hw", sort=True):
        boards.append(_board(str(hw), frame))
    return boards


def board_trials(frame: pd.DataFrame) -> pd.DataFrame:
    """The trials the board's cells aggregate. A passed run scored on a subset of the shapes (shapes=visible)
    has no headline, so it stays on its run page only. Of the house kernels only the newest code counts per
    problem: trials are repeats of one solution, and an improved kernel replaces the old one (whose runs
    keep their pages)."""
    frame = frame[frame["complete"] | (frame["status"] != "passed")]
    house = frame["row_kind"] == "house"
    newest = frame[house].sort_values("created").groupby("problem")["solution_sha"].last()
    return frame[~house | (frame["solution_sha"] == frame["problem"].map(newest))]


def _board(hw: str, all_trials: pd.DataFrame) -> Board:
    frame = board_trials(all_trials)
    problems = tuple(sorted(frame["problem"].unique()))
    rescored = all_trials[all_trials["row_kind"] == "rescored"]
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
        rows.append(Row(str(key), first["row_kind"], first["row_label"], first["slug"], cells,
                        aggregates.get(key), sum(c.passes > 0 for c in cells), len(problems), None))
    rows.sort(key=lambda r: (r.aggregate is None, -(r.aggregate or 0.0), KIND_ORDER[r.kind], r.label))
    numbered, rank = [], 0
    for row in rows:
        if row.aggregate is not None:
            rank += 1
        numbered.append(Row(**{**row.__dict__, "rank": rank if row.aggregate is not None else None}))
    return Board(hw, str(all_trials["hw_label"].iloc[0]), problems, tuple(numbered),
                 int(all_trials["run_id"].nunique()), tuple(rescored.to_dict("records")))


def _cell(problem: str, trials: pd.DataFrame) -> Cell:
    if trials.empty:
        return Cell(problem, None, 0, 0, None, None, "", "none", 0, (), "", "no run")
    failures = [f if isinstance(f, str) else "" for f in trials["failure"]] if "failure" in trials else \
        [""] * len(trials)
    records = list(zip(trials["run_id"], trials["status"], trials["category"], trials["fraction"],
                       trials["verdict"], trials["flagged"], failures))
    verdicts = tuple(sorted({r[4] for r in records if r[4]}))
    flagged = sum(1 for r in records if r[5])
    lines = [f"{r[0]}: {r[1]}" + (f" {r[3]:.3f}" if r[1] == "passed" else "") + (f" ({r[6]})" if r[6] else "")
             + (f" [{r[4]}]" if r[4] else "") for r in records[:12]]
    title = f"{len(records)} run{'s' if len(records) != 1 else ''}:\n" + "\n".join(lines)
    if len(records) > 12:
        title += f"\n... and {len(records) - 12} more"
    ranked = sorted((r for r in records if not r[5] and r[2] != "na"), key=lambda r: r[3])
    if not ranked:
        category = "flagged" if flagged else "na"
        return Cell(problem, None, 0, 0, None, None, CELL_LABELS[category], category, flagged, verdicts,
                    records[len(records) // 2][0], title)
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
    return Cell(problem, value, len(ranked), passes, fractions[0], fractions[-1], label, category, flagged, verdicts,
                middle[0], title, "" if passes else middle[6])
