"""The W4A16 house says which code path ran: its CUDA kernel (Hopper, nvcc, CuPy) or its Triton fallback.

The label is read from the file by the judge, so it names both paths and the condition; `library_version()`,
which the worker calls right after the import, names the path taken and why, and the result records it.
Each probe runs in its own process: the house keeps the path it announced for the rest of the process."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.solution_file import read_solution

REPO = Path(__file__).resolve().parents[2]
HOUSE = REPO / "problems" / "w4a16_gemm" / "solutions" / "house.py"
FAST_SCORE = ["shapes=visible", "lines=none", "audits=false", "min_calls=2", "max_calls=2", "warmup_s=0",
              "check_seeds=1", "progress=false"]


def _probe(body: str, env_changes: dict) -> subprocess.CompletedProcess:
    """Import the house in a fresh Python with CuPy made unimportable, then run `body` (house is `house`)."""
    script = (f"import sys\nsys.modules['cupy'] = None  # import cupy raises ImportError, as where it is absent\n"
              f"from scoring.problem import import_file\nfrom pathlib import Path\n"
              f"house = import_file(Path({str(HOUSE)!r}), 'house')\n{body}")
    env = {**os.environ, **env_changes}
    return subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)


def test_label_names_both_paths_and_where_the_result_says_which_ran():
    label = read_solution(HOUSE).string_constant("LABEL")
    assert "CUDA kernel" in label and "Triton" in label and "CuPy" in label and "library_version" in label


def test_without_cupy_library_version_names_the_triton_fallback_and_why():
    probe = _probe("print(house.library_version())", {"TRITON_INTERPRET": "1"})
    assert probe.returncode == 0, probe.stderr
    line = probe.stdout.strip()
    assert line.startswith("code path: Triton fallback (Triton "), line
    assert "in its CPU interpreter" in line and "CuPy is not installed" in line and "device is cpu" in line
    assert len(line) <= 200  # the judge keeps 200 characters of it (scoring/judge/process.py, printable_line)


def test_prepare_refuses_a_path_other_than_the_one_announced():
    body = ("import torch\nhouse._ANNOUNCED[:] = ['cuda']\n"
            "q = torch.zeros((16, 16), dtype=torch.int32); s = torch.ones((1, 16), dtype=torch.bfloat16)\n"
            "house.prepare(q, s, s)\n")
    probe = _probe(body, {"TRITON_INTERPRET": "1"})
    assert probe.returncode != 0
    assert "library_version() named the cuda path but the weight on cpu takes the triton path" in probe.stderr
    assert "CuPy is not installed" in probe.stderr


@pytest.mark.slow
def test_a_cpu_scoring_run_records_the_triton_fallback_in_its_result(tmp_path):
    run = subprocess.run([sys.executable, "-m", "scoring.run", "problem=w4a16_gemm", f"out={tmp_path}", *FAST_SCORE],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (result_path,) = tmp_path.glob("cpu/*.json")
    house = next(s for s in json.loads(result_path.read_text())["systems"] if s["role"] == "solution")
    assert house["status"] == "passed"
    assert house["label"] == read_solution(HOUSE).string_constant("LABEL")
    assert house["library_version"].startswith("code path: Triton fallback (Triton ")
    if importlib.util.find_spec("cupy") is None:
        assert "CuPy is not installed" in house["library_version"]
    assert f"[{house['library_version']}]" in run.stdout  # the report prints it beside the label
