"""A sweep's wall time on one GPU and on every GPU of the host, and whether its cells agree (issue 17).

    python scripts/bench_sweep_gpus.py [problem=softmax] [cells_per_gpu=2] [gpus=auto] [device=cuda]
                                       [out=results/speed] [score_args="k=v ..."]

A fake agent (harnesses/fake) "writes" the problem's house kernel in every cell, so every cell scores the same
file. `python -m harnesses.sweep` runs cells_per_gpu x N cells (N: the GPUs of gpus=) twice into fresh results
folders: first on the first GPU alone (one cell after another), then on all N (the local executor's one cell
per GPU at a time). Records both wall times and the speed-up (the target: about N), the GPU each cell ran on
(from the sweep's progress lines), and each cell's per-shape medians against the median over the one-GPU
sweep's cells, shapes of at least 50 us (the target: within 1%). The cells run with sandbox=none (the fake agent
needs no isolation, and a GPU machine may lack bubblewrap) and, by default, `lines=none audits=false`.
Writes <out>/<hardware>/<UTC time>-sweep-gpus.json and prints a table. A benchmark, not a test.
"""

from __future__ import annotations

import datetime
import json
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harnesses import fake  # noqa: E402  (after the path: runnable from anywhere)
from harnesses.executors import local_gpus  # noqa: E402
from scoring.run import git_state  # noqa: E402
from scripts.bench_deck import AGREEMENT_MIN_MS, medians_ms, write_summary  # noqa: E402

KEYS = {"problem", "cells_per_gpu", "gpus", "device", "out", "score_args"}
PROGRESS = re.compile(r"\] (\S+) on (?:GPU (\S+)|this host): ")


def sweep_file(folder: Path, problem: str, trials: int, device: str, score_args: str, clis: Path) -> Path:
    path = folder / "sweep.toml"
    path.write_text(
        f'problems = ["{problem}"]\ntrials = {trials}\n[run]\nout = "{folder / "results"}"\n'
        f'device = "{device}"\nnetwork = "none"\nsandbox = "none"\nrender = false\n'
        f'cli_dir = "{clis}"\nscore_args = "{score_args}"\n'
        '[[agents]]\nharness = "claude"\nmodel = "fake-house"\n'
    )
    return path


def run_sweep(folder: Path, gpus: list[str], **cells) -> dict:
    """One sweep into `folder`: its wall time, and per cell the GPU it ran on and its solution's result."""
    path = sweep_file(folder, **cells)
    argv = [sys.executable, "-m", "harnesses.sweep", str(path), f"gpus={','.join(gpus) or 'none'}"]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    wall_s = time.perf_counter() - started
    where = {m.group(1): m.group(2) or "" for m in map(PROGRESS.search, done.stdout.splitlines()) if m}
    results, hardware = {}, None
    for result in sorted((folder / "results").glob("*/runs/*/result.json")):
        data = json.loads(result.read_text())
        hardware = hardware or data.get("hardware")
        results[result.parent.name] = {
            "gpu": where.get(result.parent.name),
            "status": data.get("status"),
            "medians_ms": medians_ms(data),
        }
    return {
        "wall_s": wall_s,
        "exit": done.returncode,
        "command": shlex.join(argv[1:]),
        "cells": results,
        "hardware": hardware,
        "output_tail": done.stdout[-2000:] + done.stderr[-2000:],
    }


def agreement(cells: dict, reference: dict[str, float]) -> dict:
    """Each cell's largest per-shape difference from the reference medians (shapes >= 50 us)."""
    per_cell = {}
    for run_id, cell in cells.items():
        diffs = [
            abs(cell["medians_ms"][name] - ms) / ms
            for name, ms in reference.items()
            if ms >= AGREEMENT_MIN_MS and name in cell["medians_ms"]
        ]
        per_cell[run_id] = max(diffs, default=None)
    return per_cell


def main(argv: list[str]) -> int:
    options = dict(arg.split("=", 1) for arg in argv if "=" in arg)
    if any("=" not in arg for arg in argv) or set(options) - KEYS:
        print(__doc__)
        return 2
    problem, gpus = options.get("problem", "softmax"), local_gpus(options.get("gpus", "auto"))
    if not gpus:
        print("no GPU listed by nvidia-smi (or gpus=none): nothing to compare", file=sys.stderr)
        return 2
    cells = {
        "problem": problem,
        "trials": int(options.get("cells_per_gpu", 2)) * len(gpus),
        "device": options.get("device", "cuda"),
        "score_args": options.get("score_args", "lines=none audits=false"),
    }
    house = (REPO / "problems" / problem / "solutions" / "house.py").read_text()
    with tempfile.TemporaryDirectory(prefix="sweep-gpus-") as tmp:
        clis = fake.install(Path(tmp) / "clis", solution_text=house)
        (Path(tmp) / "one").mkdir()
        (Path(tmp) / "all").mkdir()
        one = run_sweep(Path(tmp) / "one", gpus[:1], clis=clis, **cells)
        every = run_sweep(Path(tmp) / "all", gpus, clis=clis, **cells)
    shapes = {name for cell in one["cells"].values() for name in cell["medians_ms"]}
    reference = {
        name: statistics.median(
            cell["medians_ms"][name] for cell in one["cells"].values() if name in cell["medians_ms"]
        )
        for name in shapes
    }
    first, second = (run.pop("hardware") for run in (one, every))
    hardware = first or second
    summary = {
        "schema": "ceiling.sweep-gpus-bench/1",
        "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "ceiling": git_state(),
        "hardware": hardware,
        "gpus": gpus,
        **cells,
        "one_gpu": one,
        "every_gpu": every,
        "speed_up": one["wall_s"] / every["wall_s"] if every["wall_s"] else None,
        "reference_medians_ms": reference,
        "agreement_min_ms": AGREEMENT_MIN_MS,
        "max_rel_diff_one_gpu": agreement(one["cells"], reference),
        "max_rel_diff_every_gpu": agreement(every["cells"], reference),
    }
    path = write_summary(summary, hardware, options.get("out", REPO / "results" / "speed"), "sweep-gpus")
    print(f"{'sweep':12} {'cells':>5} {'wall s':>8}  per-cell max |diff| (GPU)")
    for label, run, diffs in (
        ("one GPU", one, summary["max_rel_diff_one_gpu"]),
        ("every GPU", every, summary["max_rel_diff_every_gpu"]),
    ):
        cells_text = ", ".join(
            f"{'-' if d is None else f'{d:.2%}'} ({run['cells'][r]['gpu'] or 'host'})" for r, d in sorted(diffs.items())
        )
        print(f"{label:12} {len(run['cells']):5} {run['wall_s']:8.1f}  {cells_text}")
    print(f"speed-up {summary['speed_up']:.2f} on {len(gpus)} GPUs\nwritten: {path}")
    return 0 if one["exit"] == 0 and every["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
