"""One call of a solution profiled under Nsight Compute (`ncu`), for the measuring command `scoring.tensor_ops`.

No score uses this: the counter audit reads its counters inside the scoring worker (scoring/audit.py,
scoring/counters.py). Here ncu starts `python -m scoring.audit_target` as a separate process, which makes
one call of the solution inside the NVTX range `AUDIT_RANGE`, and collects the metrics of the kernels
inside that range only, into a CSV report read back as one row per kernel.
"""

from __future__ import annotations

import csv
import glob
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from scoring.audit import EXTRA_METRICS, PRECISION_METRICS
from scoring.isolation import REPO_ROOT, child_env

# What ncu collects: the tensor-pipe counters by source precision and the extras, as ncu's --metrics wants them.
NCU_METRICS = ",".join(list(PRECISION_METRICS.values()) + list(EXTRA_METRICS))
NCU_TIMEOUT_S = 900
AUDIT_RANGE = "ceiling_audit"  # the NVTX range scoring.audit_target opens around its one call


def find_ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    candidates = sorted(glob.glob("/usr/local/cuda*/bin/ncu") + glob.glob("/opt/nvidia/nsight-compute/*/ncu"))
    return candidates[-1] if candidates else None


def parse_ncu_csv(text: str) -> list[dict]:
    """Rows of `ncu --csv --page raw`: one per profiled kernel, metric name -> value (units row dropped)."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    kernels = []
    for row in rows:
        if row.get("ID", "").strip() == "" or not row["ID"].strip().isdigit():
            continue  # the units row
        kernels.append(row)
    return kernels


def ncu_command(ncu: str, metrics: str, report: Path) -> list[str]:
    """ncu collecting `metrics` for the kernels inside the AUDIT_RANGE NVTX range only, clocks untouched."""
    return [
        ncu,
        "--clock-control",
        "none",
        "--nvtx",
        "--nvtx-include",
        f"{AUDIT_RANGE}/",
        "--metrics",
        metrics,
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
        "--log-file",
        str(report),
    ]


def _read_report(report: Path, returncode: int | None) -> tuple[list[dict] | None, str | None]:
    text = report.read_text(errors="replace") if report.exists() else ""
    if "==ERROR==" in text or (returncode not in (None, 0) and not text):
        reason = next((line for line in text.splitlines() if "ERROR" in line), f"exit code {returncode}")
        return None, f"ncu failed: {reason.strip()[:300]}"
    return parse_ncu_csv(text), None


def profile_one_call(
    problem, solution_path: Path, shape: dict, device: str, seed: int, log_path: Path, metrics: str
) -> tuple[list[dict] | None, str, str | None]:
    """Run one call of the solution at `shape` under ncu with `metrics`: (kernels, ncu path, None), or
    (None, ncu path or "", why not) when ncu is missing or fails."""
    ncu = find_ncu()
    if ncu is None:
        return None, "", "Nsight Compute `ncu` not found on this machine"
    with tempfile.TemporaryDirectory(prefix="ceiling-audit-") as tmp:
        task_path = Path(tmp) / "task.json"
        task_path.write_text(
            json.dumps(
                {
                    "problem_dir": str(problem.spec.directory),
                    "solution_path": str(solution_path),
                    "shape": dict(shape),
                    "device": device,
                    "seed": seed,
                }
            )
        )
        report = Path(tmp) / "ncu.csv"
        command = ncu_command(ncu, metrics, report) + [sys.executable, "-m", "scoring.audit_target", str(task_path)]
        env = child_env(device)  # compiled Triton, whatever the caller's TRITON_INTERPRET says
        try:
            with open(log_path, "ab") as log:
                completed = subprocess.run(
                    command,
                    cwd=REPO_ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    timeout=NCU_TIMEOUT_S,
                )
        except subprocess.TimeoutExpired:
            return None, ncu, f"ncu did not finish within {NCU_TIMEOUT_S} s"
        kernels, why_not = _read_report(report, completed.returncode)
    return kernels, ncu, why_not
