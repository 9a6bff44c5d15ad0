"""Wall time of scoring the whole deck, cold and with the reference-line cache warm (issue 17's targets).

    python scripts/bench_deck.py [problems=a,b] [device=cuda] [out=results/speed] [results=DIR] [score_args="k=v ..."]
                                 [cold_runs=N]
    python scripts/bench_deck.py compare=A.json,B.json

Scores each problem's house kernel with its reference lines and audits (`python -m scoring.run`, the CLI's
defaults, one process per problem as a user runs it) twice into one fresh results folder: first cold
(`fresh_lines=true`: every line measured), then warm (the lines reused from the cold run's results,
scoring/line_cache.py). Records each run's wall time from process start to exit, whether the warm run's
lines were really reused (`cached_from`), where each run's seconds went (worker starts until the solution was
imported, each shape phase, the rest: `seconds`), and how far the warm run's per-shape medians of the house
kernel are from the cold run's on shapes of at least 50 us (the repeat-agreement target is 1%). Writes
<out>/<hardware>/<UTC time>-deck.json (hardware, versions, commit and command in it, as a result file has)
and prints a table. The runs' own result files go to a temporary folder, deleted afterwards, or to `results=DIR`
where they are kept (their per-shape `phases_s` say where each shape's seconds went; the cold run's score is a
score like any other). With `cold_runs=N`, each problem is scored cold N times before the warm run: every
cold run measures the lines afresh, so `cold_repeats` says how far each line's per-shape medians (and the
house kernel's) moved from the first cold run's, the evidence a timing policy for the lines must show.
`compare=A.json,B.json` prints that agreement, system by system, for two result files already written. A
benchmark, not a test: the targets are read from its output, never asserted.
"""

from __future__ import annotations

import datetime
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.options import with_overrides  # noqa: E402  (after the path: runnable from anywhere)
from scoring.run import git_state  # noqa: E402
from scoring.spec import discover_problems  # noqa: E402

AGREEMENT_MIN_MS = 0.05  # shapes shorter than 50 us are left out of the repeat agreement (issue 17)
TARGETS_S = {"deck_warm": 300, "deck_cold": 600, "one_solution_warm": 30}


def score(problem: str, results: Path, device: str, extra: list[str], fresh: bool, repo: Path = REPO) -> dict:
    """One `python -m scoring.run` of the house kernel (of the scorer in `repo`); its wall time and result."""
    argv = [
        sys.executable,
        "-m",
        "scoring.run",
        *with_overrides(
            [
                f"problem={problem}",
                f"device={device}",
                f"out={results}",
                f"fresh_lines={'true' if fresh else 'false'}",
                "progress=false",
            ],
            extra,
        ),
    ]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True)
    wall_s = time.perf_counter() - started
    paths = [line[len("result: ") :].strip() for line in done.stdout.splitlines() if line.startswith("result: ")]
    if not paths:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"wall_s": wall_s, "exit": done.returncode, "error": tail, "command": shlex.join(argv[1:])}
    result = json.loads(Path(paths[-1]).read_text())
    return {
        "wall_s": wall_s,
        "exit": done.returncode,
        "result": str(Path(paths[-1]).relative_to(results)),
        "command": shlex.join(argv[1:]),
        "hardware": result["hardware"],
        "systems": result["systems"],
        "seconds": where_the_seconds_went(result["systems"]),
    }


def where_the_seconds_went(systems: list[dict]) -> dict:
    """The run's wall time by kind, summed over the systems it measured (a reused line measured nothing):
    each worker's order until its solution was imported (its start too, unless it was started ahead while the
    previous system ran: scoring/standby.py), each shape phase (`phases_s`), the rest."""
    measured = [system for system in systems if not system.get("cached_from")]
    seconds = {
        "systems_s": sum(system.get("wall_s") or 0.0 for system in measured),
        "worker_starts": 0,
        "workers_started_ahead": 0,
        "spawn_to_imported_s": 0.0,
    }
    for system in measured:
        for process in system.get("processes") or []:
            seconds["worker_starts"] += 1
            seconds["workers_started_ahead"] += bool(process.get("started_ahead_s"))  # scoring/standby.py
            seconds["spawn_to_imported_s"] += process.get("spawn_to_imported_s") or 0.0
        for shape in system.get("shapes", []):
            for phase, phase_s in (shape.get("phases_s") or {}).items():
                seconds[f"{phase}_s"] = seconds.get(f"{phase}_s", 0.0) + phase_s
    seconds["other_s"] = seconds["systems_s"] - sum(
        v for k, v in seconds.items() if k.endswith("_s") and k != "systems_s"
    )
    return seconds


def without_bulk(run: dict) -> dict:
    """A run's record as a summary keeps it: everything but its whole result's systems and hardware."""
    return {k: v for k, v in run.items() if k not in ("systems", "hardware")}


def system_of(run: dict, index: int) -> dict:
    """One system of a run's result (0: the solution, then the lines); {} where the run has none there."""
    systems = run.get("systems") or []
    return systems[index] if index < len(systems) else {}


def medians_ms(run: dict, system_index: int = 0) -> dict[str, float]:
    """Per passed shape, the median of one system of a run's result."""
    system = system_of(run, system_index)
    return {
        shape["name"]: shape["timing"]["median_ms"]
        for shape in system.get("shapes", [])
        if shape.get("status") == "passed" and shape.get("timing")
    }


def relative_diffs(baseline: dict, run: dict, system_index: int = 0) -> dict[str, float]:
    """Per shape of at least 50 us in `baseline`, one system's median in `run` relative to it, signed."""
    before, after = medians_ms(baseline, system_index), medians_ms(run, system_index)
    return {
        name: (after[name] - before[name]) / before[name]
        for name in before
        if name in after and before[name] >= AGREEMENT_MIN_MS
    }


def agreement(baseline: dict, run: dict, system_index: int = 0) -> dict:
    """Relative difference of one system's per-shape medians (shapes >= 50 us), `run` against `baseline`."""
    diffs = {name: abs(diff) for name, diff in relative_diffs(baseline, run, system_index).items()}
    return {
        "shapes": len(diffs),
        "max_rel_diff": max(diffs.values(), default=None),
        "worst_shape": max(diffs, key=diffs.get) if diffs else None,
        "within_1pct": sum(diff <= 0.01 for diff in diffs.values()),
    }


def lines_agreement(baseline: dict, run: dict) -> dict:
    """Each measured reference line's agreement between two runs that both measured it (fresh lines)."""
    names = [system.get("name") for system in baseline.get("systems") or []]
    return {
        names[index]: agreement(baseline, run, index)
        for index in range(1, len(names))
        if not system_of(baseline, index).get("cached_from") and not system_of(run, index).get("cached_from")
    }


def write_summary(summary: dict, hardware: dict | None, out_root: str | Path, name: str) -> Path:
    """<out_root>/<hardware's peak row>/<UTC time>-<name>.json: where the scorer's benchmarks keep their output."""
    key = (hardware or {}).get("peak", {}).get("key") or (hardware or {}).get("profile") or "unknown"
    out = Path(out_root) / key
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{summary['created_utc'].replace(':', '').replace('-', '')[:15]}Z-{name}.json"
    path.write_text(json.dumps(summary, indent=1) + "\n")
    return path


def lines_reused(run: dict) -> str:
    lines = [system for system in run.get("systems", [])[1:]]
    reused = sum(1 for system in lines if system.get("cached_from"))
    return f"{reused}/{len(lines)}"


def main(argv: list[str]) -> int:
    options = dict(arg.split("=", 1) for arg in argv if "=" in arg)
    if any("=" not in arg for arg in argv) or set(options) - {
        "problems",
        "device",
        "out",
        "results",
        "score_args",
        "cold_runs",
        "compare",
    }:
        print(__doc__)
        return 2
    if "compare" in options:
        return compare(options["compare"].split(","))
    cold_runs = options.get("cold_runs", "1")
    if not cold_runs.isdigit() or int(cold_runs) < 1:
        print(f"cold_runs={cold_runs}: a whole number of cold runs, at least 1")
        return 2
    cold_runs = int(cold_runs)
    problems = [p for p in options.get("problems", "").split(",") if p] or sorted(discover_problems())
    device, extra = options.get("device", "auto"), shlex.split(options.get("score_args", ""))
    with tempfile.TemporaryDirectory(prefix="deck-") as folder:
        results = Path(options.get("results") or folder).resolve()
        results.mkdir(parents=True, exist_ok=True)
        runs = {}
        phases = [("cold", True)] + [(f"cold{n}", True) for n in range(2, cold_runs + 1)] + [("warm", False)]
        for phase, fresh in phases:
            for problem in problems:
                runs.setdefault(problem, {})[phase] = score(problem, results, device, extra, fresh)
                run = runs[problem][phase]
                print(
                    f"{phase:5} {problem:16} {run['wall_s']:7.1f} s  exit {run['exit']}"
                    + (f"  {run['error']}" if "error" in run else f"  lines reused {lines_reused(run)}"),
                    flush=True,
                )
    hardware = next(
        (run[phase]["hardware"] for run in runs.values() for phase in run if "hardware" in run[phase]), None
    )
    summary = {
        "schema": "ceiling.deck-bench/1",
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "ceiling": git_state(),
        "hardware": hardware,
        "targets_s": TARGETS_S,
        "deck_cold_s": sum(run["cold"]["wall_s"] for run in runs.values()),
        "deck_warm_s": sum(run["warm"]["wall_s"] for run in runs.values()),
        "problems": {
            problem: {
                "cold_s": run["cold"]["wall_s"],
                "warm_s": run["warm"]["wall_s"],
                "warm_lines_reused": lines_reused(run["warm"]),
                "repeat_agreement": agreement(run["cold"], run["warm"]),
                # Cold runs measure every line afresh: how far a line's medians move between
                # two measurements (the timing policy may get cheaper only where they agree).
                "cold_repeats": {
                    phase: {
                        "wall_s": run[phase]["wall_s"],
                        "house_agreement": agreement(run["cold"], run[phase]),
                        "lines_agreement": lines_agreement(run["cold"], run[phase]),
                        **without_bulk(run[phase]),
                    }
                    for phase in run
                    if phase.startswith("cold") and phase != "cold"
                },
                "cold": without_bulk(run["cold"]),
                "warm": without_bulk(run["warm"]),
            }
            for problem, run in runs.items()
        },
    }
    path = write_summary(summary, hardware, options.get("out", REPO / "results" / "speed"), "deck")
    print(f"\n{'problem':16} {'cold s':>8} {'warm s':>8} {'reused':>7} {'max rel diff':>13} {'cold starts s':>14}")
    for problem, row in summary["problems"].items():
        diff = row["repeat_agreement"]["max_rel_diff"]
        starts = row["cold"].get("seconds", {}).get("spawn_to_imported_s")
        print(
            f"{problem:16} {row['cold_s']:8.1f} {row['warm_s']:8.1f} {row['warm_lines_reused']:>7} "
            f"{'-' if diff is None else f'{diff:.2%}':>13} {'-' if starts is None else f'{starts:.1f}':>14}"
        )
    print(
        f"{'deck':16} {summary['deck_cold_s']:8.1f} {summary['deck_warm_s']:8.1f}   (targets: cold < "
        f"{TARGETS_S['deck_cold']} s, warm < {TARGETS_S['deck_warm']} s)\nwritten: {path}"
    )
    return 0 if all("error" not in run[phase] for run in runs.values() for phase in run) else 1


def compare(paths: list[str]) -> int:
    """Print every system's per-shape agreement between two result files (shapes >= 50 us): e.g. a line
    measured by two cold runs that a deck JSON names."""
    if len(paths) != 2:
        print("compare=A.json,B.json: two result files")
        return 2
    runs = []
    for path in paths:
        try:
            runs.append(json.loads(Path(path).read_text()))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            print(f"compare: {path} cannot be read as a result file ({exc})")
            return 2
    for index, system in enumerate(runs[0].get("systems") or []):
        if any(system_of(run, index).get("cached_from") for run in runs):
            print(f"{system.get('name', '?'):12} reused from an earlier result in one of them: not compared")
            continue
        row = agreement(runs[0], runs[1], index)
        diff = row["max_rel_diff"]
        print(
            f"{system.get('name', '?'):12} shapes {row['shapes']:3}  within 1% {row['within_1pct']:3}  max "
            f"{'-' if diff is None else f'{diff:.2%}':>8}  ({row['worst_shape']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
