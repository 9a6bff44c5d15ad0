"""Does a scorer option move the solution's timings? Interleaved runs of two option sets, compared per shape.

    python scripts/bench_ab.py a="prestart=true" b="prestart=false" [problems=a,b] [rounds=3] [device=cuda]
                               [score_args="k=v ..."] [out=results/speed] [results=DIR] [a_tree=DIR] [b_tree=DIR]

For each round and problem, one `python -m scoring.run` with the options `a`, then one with `b` (the order
alternates between rounds, so drift over the session falls on both sides alike), each with `score_args` too.
Per shape of the solution (shapes of at least 50 us), the median of the `b` runs' medians against the median
of the `a` runs' (`b_vs_a`), and the spread within each side (the largest difference of a run's median from
its side's median): an option moves the timing when `b_vs_a` stands clear of the spreads on most shapes, in
one direction. `a_tree`/`b_tree` run a side with the scorer of another checkout (e.g. `git archive` of an
earlier commit: the same house kernels scored by two designs of the scorer); the options may then be empty.
Each side's scores (the solution's geometric mean) are kept beside its medians. Writes <out>/<hardware>/<UTC time>-ab.json (hardware, versions, commit and command in it) and
prints a table. A benchmark, not a test: nothing is asserted.
"""

from __future__ import annotations

import datetime
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.run import git_state  # noqa: E402  (after the path: runnable from anywhere)
from scoring.spec import discover_problems  # noqa: E402
from scripts.bench_deck import AGREEMENT_MIN_MS, medians_ms, score, system_of, without_bulk, write_summary  # noqa: E402

OPTIONS = {"a", "b", "problems", "rounds", "device", "score_args", "out", "results", "a_tree", "b_tree"}


def compare_sides(runs_a: list[dict], runs_b: list[dict]) -> dict:
    """Per shape: the two sides' medians of their runs' medians, b against a, and each side's spread."""
    shapes = {}
    a_medians, b_medians = [medians_ms(run) for run in runs_a], [medians_ms(run) for run in runs_b]
    for name in a_medians[0] if a_medians else []:
        side_a = [m[name] for m in a_medians if name in m]
        side_b = [m[name] for m in b_medians if name in m]
        if not side_b or statistics.median(side_a) < AGREEMENT_MIN_MS:
            continue
        centre_a, centre_b = statistics.median(side_a), statistics.median(side_b)
        shapes[name] = {
            "a_ms": centre_a,
            "b_ms": centre_b,
            "b_vs_a": centre_b / centre_a - 1,
            "a_spread": max(abs(x / centre_a - 1) for x in side_a),
            "b_spread": max(abs(x / centre_b - 1) for x in side_b),
        }
    diffs = [row["b_vs_a"] for row in shapes.values()]
    scores = {
        name: [(system_of(run, 0).get("score") or {}).get("fraction") for run in side]
        for name, side in (("a", runs_a), ("b", runs_b))
    }
    return {
        "scores": scores,
        "shapes": shapes,
        "median_b_vs_a": statistics.median(diffs) if diffs else None,
        "b_slower_on": sum(d > 0 for d in diffs),
        "b_faster_on": sum(d < 0 for d in diffs),
        "clear_of_spread": sum(abs(row["b_vs_a"]) > max(row["a_spread"], row["b_spread"]) for row in shapes.values()),
    }


def main(argv: list[str]) -> int:
    options = dict(arg.split("=", 1) for arg in argv if "=" in arg)
    if any("=" not in arg for arg in argv) or set(options) - OPTIONS or not {"a", "b"} <= set(options):
        print(__doc__)
        return 2
    problems = [p for p in options.get("problems", "").split(",") if p] or sorted(discover_problems())
    device, common = options.get("device", "auto"), shlex.split(options.get("score_args", ""))
    sides = {"a": shlex.split(options["a"]), "b": shlex.split(options["b"])}
    trees = {side: Path(options.get(f"{side}_tree") or REPO).resolve() for side in sides}
    for side, tree in trees.items():
        if not (tree / "scoring" / "run.py").is_file():
            print(f"{side}_tree={tree}: no scoring/run.py there; give the root of a Ceiling checkout")
            return 2
    rounds = options.get("rounds", "3")
    if not rounds.isdigit() or int(rounds) < 1:
        print(f"rounds={rounds}: a whole number of rounds, at least 1")
        return 2
    rounds = int(rounds)
    runs: dict[str, dict[str, list[dict]]] = {problem: {"a": [], "b": []} for problem in problems}
    with tempfile.TemporaryDirectory(prefix="ab-") as folder:
        results = Path(options.get("results") or folder).resolve()
        results.mkdir(parents=True, exist_ok=True)
        for round_index in range(rounds):
            order = ("a", "b") if round_index % 2 == 0 else ("b", "a")
            for problem in problems:
                for side in order:
                    # fresh_lines=true: every run measures what it is asked to, none reuses another's line.
                    run = score(problem, results, device, [*common, *sides[side]], fresh=True, repo=trees[side])
                    runs[problem][side].append(run)
                    print(
                        f"round {round_index + 1} {side} {problem:16} {run['wall_s']:6.1f} s  exit {run['exit']}"
                        + (f"  {run['error']}" if "error" in run else ""),
                        flush=True,
                    )
    hardware = next(
        (run["hardware"] for sides_ in runs.values() for side in sides_.values() for run in side if "hardware" in run),
        None,
    )
    summary = {
        "schema": "ceiling.ab-bench/1",
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "ceiling": git_state(),
        "hardware": hardware,
        "a": options["a"],
        "b": options["b"],
        "trees": {side: str(tree) for side, tree in trees.items()},
        "rounds": rounds,
        "score_args": options.get("score_args", ""),
        "problems": {
            problem: {
                **compare_sides(side["a"], side["b"]),
                "runs": {name: [without_bulk(run) for run in side[name]] for name in ("a", "b")},
            }
            for problem, side in runs.items()
        },
    }
    path = write_summary(summary, hardware, options.get("out", REPO / "results" / "speed"), "ab")
    print(f"\nb ({options['b']}) against a ({options['a']}), shapes >= 50 us:")
    print(
        f"{'problem':16} {'median b/a':>11} {'b slower':>9} {'b faster':>9} {'clear of spread':>16} "
        f"{'scores a':>16} {'scores b':>16} {'wall a s':>9} {'wall b s':>9}"
    )
    for problem, row in summary["problems"].items():
        diff = row["median_b_vs_a"]
        scores = {side: " ".join("-" if x is None else f"{x:.3f}" for x in row["scores"][side]) for side in "ab"}
        walls = {side: statistics.median(run["wall_s"] for run in runs[problem][side]) for side in "ab"}
        print(
            f"{problem:16} {'-' if diff is None else f'{diff:+.2%}':>11} {row['b_slower_on']:9} "
            f"{row['b_faster_on']:9} {row['clear_of_spread']:>10}/{len(row['shapes'])} "
            f"{scores['a']:>16} {scores['b']:>16} {walls['a']:9.1f} {walls['b']:9.1f}"
        )
    print(f"written: {path}")
    failed = [run for side in runs.values() for name in side for run in side[name] if "error" in run]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
