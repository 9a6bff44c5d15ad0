"""Whether a GPU's timings depend on its neighbours (issue 17): one solution scored alone on the first GPU, then
on every GPU of the host at once, then alone again, each scorer pinned with CUDA_VISIBLE_DEVICES as the sweep's
local executor and the kernelbench importer pin theirs.

    python scripts/bench_gpus.py [problem=softmax] [solution=PATH] [gpus=auto] [device=cuda] [out=results/speed]
                                 [score_args="k=v ..."]

Each concurrent run's per-shape medians are compared with the first lone run's on shapes of at least 50 us
(the target: within 1%); the second lone run against the first is the same machine's repeat spread, the
yardstick the concurrent differences are read against. Scorer options default to the solution alone
(`lines=none audits=false`). Writes <out>/<hardware>/<UTC time>-gpus.json (hardware, commit, command and each
run's wall time in it) and prints a table. A benchmark, not a test: the target is read from its output.
"""

from __future__ import annotations

import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harnesses.executors import local_gpus  # noqa: E402  (after the path: runnable from anywhere)
from scoring.options import with_overrides  # noqa: E402
from scoring.run import git_state  # noqa: E402
from scripts.bench_deck import (  # noqa: E402
    AGREEMENT_MIN_MS,
    medians_ms,
    relative_diffs,
    without_bulk,
    write_summary,
)

KEYS = {"problem", "solution", "gpus", "device", "out", "score_args"}


def start(problem: str, solution: str, gpu: str, results: Path, extra: list[str]) -> subprocess.Popen:
    argv = [
        sys.executable,
        "-m",
        "scoring.run",
        *with_overrides(
            [f"problem={problem}", f"out={results}", "progress=false", *([f"solution={solution}"] if solution else [])],
            extra,
        ),
    ]
    return subprocess.Popen(
        argv,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, CUDA_VISIBLE_DEVICES=gpu),
    )


def finish(proc: subprocess.Popen, started: float) -> dict:
    output, _ = proc.communicate()
    run = {"wall_s": time.perf_counter() - started, "exit": proc.returncode, "command": shlex.join(proc.args[1:])}
    paths = [line[len("result: ") :].strip() for line in output.splitlines() if line.startswith("result: ")]
    if not paths:
        return {**run, "error": (output.strip().splitlines() or ["no output"])[-1]}
    result = json.loads(Path(paths[-1]).read_text())
    return {**run, "hardware": result["hardware"], "systems": result["systems"]}


def score_at_once(problem: str, solution: str, gpus: list[str], results: Path, extra: list[str]) -> list[dict]:
    started = time.perf_counter()
    procs = [start(problem, solution, gpu, results / f"gpu{gpu}", extra) for gpu in gpus]
    return [finish(proc, started) for proc in procs]


def spread(baseline: dict, run: dict) -> dict:
    """How far a run's per-shape medians are from the baseline's: the largest and the median relative difference."""
    diffs = relative_diffs(baseline, run)
    worst = max(diffs, key=lambda name: abs(diffs[name])) if diffs else None
    return {
        "shapes": len(diffs),
        "max_abs_rel_diff": abs(diffs[worst]) if worst else None,
        "worst_shape": worst,
        "median_rel_diff": sorted(diffs.values())[len(diffs) // 2] if diffs else None,
    }


def main(argv: list[str]) -> int:
    options = dict(arg.split("=", 1) for arg in argv if "=" in arg)
    if any("=" not in arg for arg in argv) or set(options) - KEYS:
        print(__doc__)
        return 2
    problem, solution = options.get("problem", "softmax"), options.get("solution", "")
    gpus = local_gpus(options.get("gpus", "auto"))
    extra = [
        f"device={options.get('device', 'cuda')}",
        *shlex.split(options.get("score_args", "lines=none audits=false")),
    ]
    if not gpus:
        print("no GPU listed by nvidia-smi (or gpus=none): nothing to compare", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gpus-") as folder:
        results = Path(folder)
        alone = score_at_once(problem, solution, gpus[:1], results / "alone", extra)[0]
        together = score_at_once(problem, solution, gpus, results / "together", extra)
        alone_again = score_at_once(problem, solution, gpus[:1], results / "alone_again", extra)[0]
    runs = [alone, *together, alone_again]
    hardware = next((run["hardware"] for run in runs if "hardware" in run), None)
    summary = {
        "schema": "ceiling.gpus-bench/1",
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "ceiling": git_state(),
        "hardware": hardware,
        "problem": problem,
        "solution": solution or "house",
        "gpus": gpus,
        "agreement_min_ms": AGREEMENT_MIN_MS,
        "repeat_alone": spread(alone, alone_again),
        "together": {gpu: spread(alone, run) for gpu, run in zip(gpus, together)},
        "runs": {
            "alone": _kept(alone),
            "together": {gpu: _kept(run) for gpu, run in zip(gpus, together)},
            "alone_again": _kept(alone_again),
        },
    }
    path = write_summary(summary, hardware, options.get("out", REPO / "results" / "speed"), "gpus")
    print(f"\n{'run':22} {'wall s':>7} {'shapes':>6} {'max |diff|':>10} {'median diff':>11}  worst shape")
    rows = [("alone again (GPU %s)" % gpus[0], alone_again, summary["repeat_alone"])]
    rows += [(f"together, GPU {gpu}", run, summary["together"][gpu]) for gpu, run in zip(gpus, together)]
    for label, run, diff in rows:
        worst, middle = diff["max_abs_rel_diff"], diff["median_rel_diff"]
        print(
            f"{label:22} {run['wall_s']:7.1f} {diff['shapes']:6} {'-' if worst is None else f'{worst:.2%}':>10} "
            f"{'-' if middle is None else f'{middle:+.2%}':>11}  {diff['worst_shape'] or run.get('error', '')}"
        )
    print(
        f"(against the first lone run on GPU {gpus[0]}, {alone['wall_s']:.1f} s; shapes >= "
        f"{AGREEMENT_MIN_MS * 1000:.0f} us)\nwritten: {path}"
    )
    return 0 if all("error" not in run for run in runs) else 1


def _kept(run: dict) -> dict:
    """A run's record without its bulky result (the per-shape medians the diffs came from stay)."""
    return {**without_bulk(run), "medians_ms": medians_ms(run) if "systems" in run else {}}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
