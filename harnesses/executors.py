"""Where a sweep's cells run. Every cell is its own `python -m harnesses.run` process, so a crash in one
cell is recorded (logs under <out>/.sweeps/) and the others go on.

- local: one run per GPU at a time, pinned by device (gpu=N); with one GPU or none, one after another.
- slurm: one sbatch job array over the pending cells, one array task per cell (a GPU each when the
  [slurm] table asks for gpus); results land on the shared file system under the cells' `out`.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from harnesses.config import HarnessConfig
from harnesses.score import REPO_ROOT


def local_gpus(spec: str) -> list[str]:
    """GPU indices for the local executor: an explicit list, none, or all that nvidia-smi lists."""
    if spec == "none":
        return []
    if spec != "auto":
        return [g.strip() for g in spec.split(",") if g.strip()]
    if not shutil.which("nvidia-smi"):
        return []
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    return [str(i) for i, line in enumerate(listed.splitlines()) if line.startswith("GPU ")]


def _cell_command(cell: HarnessConfig) -> list[str]:
    return [sys.executable, "-m", "harnesses.run", *[f"{k}={v}" for k, v in dataclasses.asdict(cell).items()]]


def _run_cell(cell: HarnessConfig, log_dir: Path) -> tuple[int, float]:
    log_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(log_dir / f"{cell.effective_run_id()}.log", "w") as log:
        code = subprocess.run(_cell_command(cell), cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
    return code, time.monotonic() - started


def _progress(done: int, total: int, cell: HarnessConfig, code: int, seconds: float, where: str) -> None:
    meaning = {0: "passed", 1: "finished, not passed", 2: "usage error"}.get(code, f"crashed (exit {code})")
    print(f"[{done}/{total}] {cell.effective_run_id()} on {where}: {meaning} ({seconds:.1f} s)", flush=True)


def run_local(cells: list[HarnessConfig], gpus: list[str]) -> int:
    """Run the cells; returns how many crashed or had usage errors (exit status 2 or more)."""
    if not cells:
        return 0
    log_dir = Path(cells[0].out) / ".sweeps" / "logs"
    slots: queue.Queue = queue.Queue()
    for gpu in gpus or [""]:
        slots.put(gpu)
    lock, state = threading.Lock(), {"done": 0, "failed": 0}

    def work(cell: HarnessConfig) -> None:
        gpu = slots.get()
        try:
            pinned = dataclasses.replace(cell, gpu=gpu) if gpu else cell
            code, seconds = _run_cell(pinned, log_dir)
        finally:
            slots.put(gpu)
        with lock:
            state["done"] += 1
            state["failed"] += code >= 2
            _progress(state["done"], len(cells), cell, code, seconds, f"GPU {gpu}" if gpu else "this host")

    threads = [threading.Thread(target=work, args=(c,)) for c in cells]
    for t in threads:  # at most len(slots) run at once: the others wait for a free GPU
        t.start()
    for t in threads:
        t.join()
    return state["failed"]


def run_cell_from_file(cells_file: Path, index: int) -> int:
    """One array task: run cell `index` of a cells file unless it is already done."""
    from harnesses.runner import find_run

    cell = HarnessConfig(**json.loads(cells_file.read_text())[index])
    if find_run(Path(cell.out), cell.effective_run_id()):
        print(f"{cell.effective_run_id()}: already done, skipped")
        return 0
    code = subprocess.run(_cell_command(cell), cwd=REPO_ROOT).returncode
    return 0 if code in (0, 1) else code  # 1 = finished but not passed: the job itself succeeded


def slurm_script(cells_file: Path, table: dict, count: int, log_dir: Path) -> str:
    lines = [
        "#!/bin/bash",
        f"#SBATCH --array=0-{count - 1}",
        f"#SBATCH --output={log_dir}/cell-%A_%a.out",
        f"#SBATCH --time={int(table.get('time_min', 60))}",
        "#SBATCH --ntasks=1",
        f"#SBATCH --cpus-per-task={int(table.get('cpus_per_task', 1))}",
    ]
    if table.get("partition"):
        lines.append(f"#SBATCH --partition={table['partition']}")
    if int(table.get("gpus", 0)):
        lines.append(f"#SBATCH --gres=gpu:{int(table['gpus'])}")
    lines += [f"#SBATCH {extra}" for extra in table.get("extra", [])]
    lines += [f"cd {REPO_ROOT}", f"exec {sys.executable} -m harnesses.sweep cell {cells_file} $SLURM_ARRAY_TASK_ID"]
    return "\n".join(lines) + "\n"


def run_slurm(cells: list[HarnessConfig], table: dict, name: str, wait: bool = True) -> int:
    """Submit one job array over the cells (sbatch); with `wait`, block until it ends."""
    if not cells:
        return 0
    sweep_dir = Path(cells[0].out).resolve() / ".sweeps" / f"{name}-{time.strftime('%Y%m%dT%H%M%S')}"
    sweep_dir.mkdir(parents=True, exist_ok=True)
    cells_file = sweep_dir / "cells.json"
    cells_file.write_text(json.dumps([dataclasses.asdict(c) for c in cells], indent=1))
    script = sweep_dir / "job.sh"
    script.write_text(slurm_script(cells_file, table, len(cells), sweep_dir))
    argv = ["sbatch", "--parsable", *(["--wait"] if wait else []), str(script)]
    print(f"submitting {len(cells)} cells: {' '.join(argv)}", flush=True)
    proc = subprocess.run(argv, capture_output=True, text=True)
    print(proc.stdout.strip() or proc.stderr.strip(), flush=True)
    return 0 if proc.returncode == 0 else len(cells)
