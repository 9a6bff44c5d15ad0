"""A sweep of 2 fake agents x 2 problems x 2 trials on the CPU: every cell completes and is scored, the
results and transcripts are written, a third agent whose CLI is missing fails alone, a second invocation
skips every finished cell, and the site builds from the results (where the site generator exists)."""

import importlib.util
import json
import shutil
import subprocess
import sys

import pytest

from harnesses import fake
from harnesses.score import REPO_ROOT
from tests.harnesses.conftest import FAST_SCORE, needs_bwrap

PACKAGES = ("scoring", "harnesses", "viewer", "problems")


@pytest.fixture(scope="module")
def sweep_run(tmp_path_factory):
    """A copy of the repository with a second problem (fp8_gemm_b, a renamed copy), and the sweep run in it."""
    root = tmp_path_factory.mktemp("sweep")
    repo = root / "repo"
    for name in PACKAGES:
        shutil.copytree(REPO_ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__", "lab"))
    shutil.copytree(repo / "problems" / "fp8_gemm", repo / "problems" / "fp8_gemm_b")
    clis = fake.install(root / "clis")
    sweep = root / "sweep.toml"
    sweep.write_text(f'''problems = ["fp8_gemm", "fp8_gemm_b"]
trials = 2
[run]
out = "{root / 'results'}"
device = "cpu"
network = "none"
cli_dir = "{clis}"
render = true
score_args = "{FAST_SCORE}"
[[agents]]
harness = "claude"
model = "fake-a"
[[agents]]
harness = "gemini"
model = "fake-b"
effort = "high"
[[agents]]
harness = "kimi"
model = "missing"
cli_dir = "{root / 'nowhere'}"
''')
    first = subprocess.run(
        [sys.executable, "-m", "harnesses.sweep", str(sweep)], cwd=repo, capture_output=True, text=True, timeout=600
    )
    second = subprocess.run(
        [sys.executable, "-m", "harnesses.sweep", str(sweep)], cwd=repo, capture_output=True, text=True, timeout=120
    )
    return root, first, second


@needs_bwrap
def test_sweep_runs_scores_and_resumes(sweep_run):
    root, first, second = sweep_run
    assert "12 cells, 0 done, 12 to run" in first.stdout, first.stdout + first.stderr
    assert first.returncode == 1  # the kimi cells failed (no CLI), and only they did
    assert first.stdout.count("usage error") == 4 and first.stdout.count(": passed (") == 8
    runs = sorted((root / "results" / "cpu" / "runs").iterdir())
    assert [r.name for r in runs] == sorted(
        f"{h}-{p}-t{t}"
        for h in ("claude-fake-a-default", "gemini-fake-b-high")
        for p in ("fp8_gemm", "fp8_gemm_b")
        for t in (0, 1)
    )
    for run in runs:
        record = json.loads((run / "run.json").read_text())
        result = json.loads((run / "result.json").read_text())
        assert record["complete"] and record["score"]["status"] == "passed" == result["status"]
        assert result["problem"]["name"] == record["config"]["problem"]
        assert result["agent"]["harness"] in ("claude", "gemini") and result["agent"]["complete"]
        assert result["agent"]["tokens"]["output"] > 0 and result["agent"]["run_dir"] == f"runs/{run.name}"
        assert (run / "transcript.html").is_file() and (run / "transcript.jsonl").is_file()
    scorer_results = list((root / "results" / "cpu").glob("*.json"))
    assert len(scorer_results) == 8
    assert "claude     fake-a" in first.stdout and "best" in first.stdout  # the summary table
    # Resumable: the second invocation runs only the failed cells again.
    assert "12 cells, 8 done, 4 to run" in second.stdout
    assert second.stdout.count(": passed (") == 0


@needs_bwrap
def test_site_builds_from_sweep_results(sweep_run):
    if importlib.util.find_spec("board") is None:
        pytest.skip("board (the site engineer's generator) is not in this branch yet")
    root, _, _ = sweep_run
    site = root / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "board", f"results={root / 'results'}", f"out={site}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (site / "index.html").is_file()
