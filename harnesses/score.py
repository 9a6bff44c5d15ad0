"""Score an agent's solution: the solution file alone, copied into a fresh folder, scored by
`python -m scoring.run` in a fresh process against the repository's pristine problem folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scoring.options import with_overrides

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Scored:
    result_path: Path | None  # the scorer's own result file under <out>/<hw>/
    exit_code: int  # 0 passed, 1 failed, 2 usage error (scoring.run's convention)
    status: str  # the result's status, or why there is none


def score_solution(
    problem: str,
    solution: Path,
    agent: dict,
    out: Path,
    device: str,
    extra: list[str],
    log: Path,
    env: dict | None = None,
) -> Scored:
    with tempfile.TemporaryDirectory(prefix="ceiling-score-") as tmp:
        copy = Path(tmp) / "solution.py"
        shutil.copyfile(solution, copy)
        agent_file = Path(tmp) / "agent.json"
        agent_file.write_text(json.dumps(agent, indent=1))
        # score_args (extra) may replace the defaults; the scorer refuses a key given twice (scoring/options.py)
        argv = [
            sys.executable,
            "-m",
            "scoring.run",
            f"problem={problem}",
            f"solution={copy}",
            f"agent={agent_file}",
            f"out={out.resolve()}",
            *with_overrides(["lines=none", f"device={device}"], extra),
        ]
        proc = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, env=env or dict(os.environ))
    log.write_text(f"$ {' '.join(argv)}\n{proc.stdout}\n--- stderr ---\n{proc.stderr}")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("result: ")]
    if not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return Scored(None, proc.returncode, f"not scored: {tail}")
    path = Path(lines[-1][len("result: ") :].strip())
    return Scored(path, proc.returncode, json.loads(path.read_text()).get("status", "?"))
