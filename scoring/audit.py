"""Hardware-counter audits through Nsight Compute: what the tensor pipe really executed.

fp8 values are exact in bf16, so no numeric check tells an fp8 GEMM from a bf16 GEMM on fp8 data (X20);
the tensor pipe's per-source-precision operation counters do, and their total against the problem's
FLOP formula shows skipped work (X22). Outcomes are `passed`, `failed (Xnn: detail)` or
`not verified (why)`: an audit that could not run is never reported as passed.
"""

from __future__ import annotations

import csv
import re
import glob
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from scoring.isolation import REPO_ROOT, child_env

# Tensor-pipe operation counters by source precision (Hopper; HARDWARE.md). Each counts FLOPs.
PRECISION_METRICS = {
    "fp8": "sm__ops_path_tensor_src_fp8.sum",
    "bf16": "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "fp16": "sm__ops_path_tensor_op_hgmma_src_fp16.sum",
    "tf32": "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum",
}
EXTRA_METRICS = ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum")
# What one profiled call collects: the tensor-pipe counters and the extras above.
TENSOR_AUDIT_METRICS = ",".join(list(PRECISION_METRICS.values()) + list(EXTRA_METRICS))
# Executed tensor FLOPs may exceed the formula by tile padding; below this share of it, work was skipped.
MIN_EXECUTED_SHARE = 0.99
# Tensor work on another precision path above this share of the formula means the kernel widened (X20).
MAX_OTHER_PATH_SHARE = 0.01
NCU_TIMEOUT_S = 900
# Kernel-name prefixes and fragments of vendor libraries (cuBLAS/cuBLASLt, CUTLASS builds inside them,
# cuDNN, flash-attention, FlashInfer, Marlin): their presence in the solution's profiled call is X21.
VENDOR_KERNEL_PATTERNS = (r"^nvjet", r"xmma", r"^cutlass", r"cublas", r"^sm\d+_.*gemm", r"gemv2[NT]_kernel",
                          r"gemmSN", r"splitKreduce", r"cudnn", r"^flash_fwd", r"flashinfer", r"fmha", r"marlin",
                          r"^ampere_.*gemm", r"^hopper_.*gemm")


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


def _number(value: str) -> float:
    value = (value or "").replace(",", "").strip()
    try:
        return float(value)
    except ValueError:
        return 0.0


def judge_tensor_precision(kernels: list[dict], expect: str, formula_flops: int) -> tuple[str, dict]:
    """Outcome and evidence from profiled kernels for a problem whose tensor work must use `expect`."""
    totals = {precision: sum(_number(k.get(metric, "")) for k in kernels)
              for precision, metric in PRECISION_METRICS.items()}
    evidence = {
        "kernels": [k.get("Kernel Name", "?") for k in kernels],
        "tensor_ops_by_source_precision": totals,
        "formula_flops": formula_flops,
        "executed_share_of_formula": totals.get(expect, 0.0) / formula_flops,
        "kernel_time_ms": sum(_number(k.get("gpu__time_duration.sum", "")) for k in kernels) / 1e6,
    }
    if not kernels:
        return "not verified (ncu profiled no kernel inside the audit range)", evidence
    others = {p: v for p, v in totals.items() if p != expect and v > MAX_OTHER_PATH_SHARE * formula_flops}
    if others:
        detail = ", ".join(f"{p} {v / formula_flops:.2f}x" for p, v in others.items())
        return f"failed (X20: tensor work on the {detail} of the formula path(s), expected {expect})", evidence
    share = evidence["executed_share_of_formula"]
    if share < MIN_EXECUTED_SHARE:
        x = "X20" if share == 0 else "X22"
        return f"failed ({x}: {expect} tensor ops executed = {share:.3f} of the formula's {formula_flops:.4g})", evidence
    return "passed", evidence


def judge_kernel_names(kernel_names: list[str]) -> str:
    """X21 outcome for the kernels a solution's call launched (from the same ncu run)."""
    if not kernel_names:
        return "not verified (ncu profiled no kernel inside the audit range)"
    vendor = sorted({name for name in kernel_names
                     if any(re.search(pattern, name) for pattern in VENDOR_KERNEL_PATTERNS)})
    if vendor:
        return f"failed (X21: vendor library kernels launched: {', '.join(v[:80] for v in vendor[:3])})"
    return "passed"


def profile_one_call(problem, solution_path: Path, shape: dict, device: str, seed: int, log_path: Path,
                     metrics: str) -> tuple[list[dict] | None, str, str | None]:
    """Run one call of the solution at `shape` under ncu with `metrics`: (kernels, ncu path, None), or
    (None, ncu path or "", why not) when ncu is missing or fails."""
    ncu = find_ncu()
    if ncu is None:
        return None, "", "Nsight Compute `ncu` not found on this machine"
    with tempfile.TemporaryDirectory(prefix="ceiling-audit-") as tmp:
        task_path = Path(tmp) / "task.json"
        task_path.write_text(json.dumps({"problem_dir": str(problem.spec.directory), "solution_path": str(solution_path),
                                         "shape": dict(shape), "device": device, "seed": seed}))
        report = Path(tmp) / "ncu.csv"
        command = [ncu, "--clock-control", "none", "--nvtx", "--nvtx-include", "ceiling_audit/",
                   "--metrics", metrics, "--csv", "--page", "raw", "--print-units", "base",
                   "--log-file", str(report), sys.executable, "-m", "scoring.audit_target", str(task_path)]
        env = child_env(device)  # compiled Triton, whatever the caller's TRITON_INTERPRET says
        try:
            with open(log_path, "ab") as log:
                completed = subprocess.run(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, timeout=NCU_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, ncu, f"ncu did not finish within {NCU_TIMEOUT_S} s"
        text = report.read_text(errors="replace") if report.exists() else ""
    if completed.returncode != 0 or "==ERROR==" in text:
        reason = next((line for line in text.splitlines() if "ERROR" in line), f"exit code {completed.returncode}")
        return None, ncu, f"ncu failed: {reason.strip()[:300]}"
    return parse_ncu_csv(text), ncu, None


def run_tensor_precision_audit(problem, solution_path: Path, audit, device: str, seed: int, log_path: Path) -> dict:
    record = {"id": "tensor_precision", "classes": ["X20", "X22"], "expect": audit.expect, "shape": dict(audit.shape),
              "tool": None}
    kernels, ncu, why_not = profile_one_call(problem, solution_path, audit.shape, device, seed, log_path,
                                             TENSOR_AUDIT_METRICS)
    record["tool"] = ncu or None
    if kernels is None:
        return dict(record, outcome=f"not verified ({why_not})")
    outcome, evidence = judge_tensor_precision(kernels, audit.expect, problem.flops(audit.shape))
    return dict(record, outcome=outcome, evidence=evidence)


def run_audits(problem, solution_path: Path, hardware, seed: int, log_path: Path) -> list[dict]:
    """The problem's counter audits, each followed by the vendor-kernel audit of the same profiled call."""
    audits = []
    for audit in problem.spec.audits:
        if hardware.profile == "cpu":
            reason = "not verified (CPU profile: no GPU counters to read)"
            record = {"id": audit.kind, "classes": ["X20", "X22"], "expect": audit.expect, "outcome": reason}
        else:
            record = run_tensor_precision_audit(problem, solution_path, audit, hardware.device, seed, log_path)
        audits.append(record)
        kernels = record.get("evidence", {}).get("kernels", [])
        names_outcome = judge_kernel_names(kernels) if "evidence" in record else record["outcome"]
        audits.append({"id": "vendor_kernels", "classes": ["X21"], "shape": dict(audit.shape),
                       "outcome": names_outcome, "evidence": {"kernels": kernels}})
    return audits
