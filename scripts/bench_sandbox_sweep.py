"""Wall time of a sweep of the fake CLI and the probe CLI, two runs at once (issue 39's acceptance).

    python scripts/bench_sandbox_sweep.py [trials=2] [out=/tmp/ceiling-bench-sweep]

Installs harnesses/fake (as claude, the good behaviour) and the probe CLI of tests/harnesses/probe_cli
(as claude, a few escape probes) into a scratch folder, writes a sweep file of fp8_gemm x `trials` for
each, runs `python -m harnesses.sweep SWEEP gpus=0,1` (the local executor's two slots run two cells at
once; on a CPU machine the GPU index only sets CUDA_VISIBLE_DEVICES) with the CPU profile's fast scorer
options, and prints the command, the wall time and each cell's outcome.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from harnesses import fake  # noqa: E402
from harnesses.fake.cli import DEFAULT_SOLUTION  # noqa: E402
from tests.harnesses import probe_cli  # noqa: E402

FAST_SCORE = "shapes=visible min_calls=2 max_calls=2 warmup_s=0 check_seeds=1 audits=false progress=false"
BENCH_PROBES = [
    {"name": "whoami", "shell": "id; grep -E 'Cap(Eff|Bnd)|Seccomp:' /proc/self/status"},
    {"name": "shadow", "shell": "cat /etc/shadow"},
    {"name": "write_tmp", "shell": "head -c 10000000 /dev/zero > /tmp/ten_mb && ls -l /tmp/ten_mb"},
]


def main(argv: list[str]) -> int:
    options = dict(arg.split("=", 1) for arg in argv)
    trials, root = int(options.get("trials", 2)), Path(options.get("out", "/tmp/ceiling-bench-sweep"))
    shutil.rmtree(root, ignore_errors=True)
    fake_dir = fake.install(root / "fake")
    probe_dir = probe_cli.install(root / "probe", BENCH_PROBES, solution=DEFAULT_SOLUTION)
    sweep = root / "sweep.toml"
    sweep.write_text(f'''problems = ["fp8_gemm"]
trials = {trials}
[run]
out = "{root / 'results'}"
device = "cpu"
render = true
score_args = "{FAST_SCORE}"
[[agents]]
harness = "claude"
model = "fake"
cli_dir = "{fake_dir}"
[[agents]]
harness = "claude"
model = "probe"
cli_dir = "{probe_dir}"
''')
    command = [sys.executable, "-m", "harnesses.sweep", str(sweep), "gpus=0,1"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    wall_s = time.monotonic() - started
    print(done.stdout[-3000:], done.stderr[-2000:])
    cells = {}
    for run_json in sorted((root / "results").glob("*/runs/*/run.json")):
        record = json.loads(run_json.read_text())
        cells[record["run_id"]] = {
            "complete": record["complete"],
            "score": record["score"]["status"],
            "wall_s": record["wall_s"],
        }
    print(
        json.dumps(
            {"command": " ".join(command), "exit": done.returncode, "sweep_wall_s": round(wall_s, 1), "cells": cells},
            indent=1,
        )
    )
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
