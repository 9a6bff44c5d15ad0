"""Adding a problem is copying one folder (issue 19).

A tiny eighth problem, memory-bound (out = alpha * x + y over fp32 vectors), is written into a temporary
problems root beside links to the seven committed problems, and `CEILING_PROBLEMS_ROOT` points every
consumer at that root (scoring/spec.py: problems_root). With nothing else edited:

* discovery finds it and its data and formulas load;
* `python -m scoring.run list` lists it;
* `python -m scoring.run problem=scale_add device=cpu lines=none audits=false` scores its house kernel as passed;
* `python -m board` on a results folder holding that result renders its problem page and its run page;
* the corpus runner lists its house kernel and known-wrong solution (it has no adversaries, and says nothing
  of them), and scores both as expected;
* no hand-written table in docs/problems.md lists problems. There is none today (the list of problems is
  `python -m scoring.run list` and the site's problems page); if one is ever added, the check below fails
  for the missing row, because such a table has to be edited by hand for every new problem.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.spec import PROBLEMS_ROOT_ENV, discover_problems

REPO = Path(__file__).resolve().parents[1]
PROBLEM = "scale_add"
TIMEOUT_S = 240
# Reduced timing, as the corpus runner's CPU profile: this checks that the pipeline accepts the problem, not speed.
QUICK = ("check_seeds=2", "warmup_s=0", "min_calls=2", "max_calls=3", "budget_s=5")

PROBLEM_FILES = {
    "problem.toml": '''\
title = "Scale and add (fp32)"
summary = """out = alpha * x + y over fp32 vectors: each input read once, the output written once; memory-bound \\
at every size. A test's eighth problem (tests/test_new_problem.py), not part of the benchmark."""
precision = "fp32"

[tolerance]
rtol = 1e-5
atol = 1e-5
normwise = 1e-5

[[shapes.visible]]
name = "n_16m"
n = 16777216

[[shapes.held_out]]
name = "n_10m"
n = 10000000

[shapes.property]
count = 1
n = { min = 1024, max = 16777216, log = true }

# 12 MB of traffic and more: beyond a 2-core CI machine's caches. The CPU peak is a copy through memory, and
# a vector held in cache can run above it, which the above-peak rule rejects (X12), as it should.
[[cpu.shapes.visible]]
name = "n_1m"
n = 1048576

[[cpu.shapes.held_out]]
name = "n_800k"
n = 800000

[cpu.shapes.property]
count = 1
n = { min = 16, max = 4096, log = true }
''',
    "problem.py": '''\
"""Scale and add: out = alpha * x + y, fp32 in and out, the reference in fp64."""

import torch

ALPHA = 0.75


def flops(shape):
    return 2 * shape["n"]  # one multiply, one add per element


def bytes_moved(shape):
    return 3 * 4 * shape["n"]  # x and y read once, out written once, fp32


def output_spec(shape):
    return (shape["n"],), torch.float32


def make_weights(shape, gen, device):
    return {"alpha": ALPHA}


def make_inputs(shape, weights, gen, device):
    n = shape["n"]
    return {"x": torch.randn(n, generator=gen, device=device), "y": torch.randn(n, generator=gen, device=device)}


def reference(weights, inputs):
    return weights["alpha"] * inputs["x"].double() + inputs["y"].double()
''',
    "prompt.md": "# Scale and add\n\nWrite `run(state, x, y)` returning `state['alpha'] * x + y` (fp32 vectors).\n",
    "NOTES.md": "# Scale and add\n\nA test fixture: one read of each input and one write make it memory-bound.\n",
    # Through fp64: on the CPU profile a plain fp32 add runs at about the measured copy bandwidth, the peak,
    # and on a busy machine the above-peak rule (X12) rejects it; three times the traffic keeps it well below.
    "solutions/house.py": '''\
"""House kernel: alpha * x + y computed in fp64, rounded once to fp32."""

import torch


def run(state, x, y):
    return (state["alpha"] * x.double() + y.double()).float()
''',
    "solutions/wrong/zeros.py": '''\
"""Known wrong (X01): zeros of the right shape and dtype."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x, y):
    return torch.zeros_like(x)
''',
}


@pytest.fixture(scope="module")
def problems_root(tmp_path_factory) -> Path:
    """The seven committed problems (linked) and the eighth (written), in one temporary problems root."""
    root = tmp_path_factory.mktemp("problems")
    for name, directory in discover_problems().items():
        (root / name).symlink_to(directory, target_is_directory=True)
    for relative, text in PROBLEM_FILES.items():
        path = root / PROBLEM / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def with_root(problems_root, monkeypatch) -> Path:
    monkeypatch.setenv(PROBLEMS_ROOT_ENV, str(problems_root))
    return problems_root


def command(problems_root: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, PROBLEMS_ROOT_ENV: str(problems_root)}
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
    )


@pytest.fixture(scope="module")
def scored(problems_root, tmp_path_factory) -> tuple[Path, dict]:
    """The house kernel scored once, exactly as a user would: the results folder and the result."""
    results = tmp_path_factory.mktemp("results")
    done = command(
        problems_root, "scoring.run", f"problem={PROBLEM}", "device=cpu", "lines=none", f"out={results}", *QUICK
    )
    assert done.returncode == 0, done.stdout + done.stderr
    path = Path(done.stdout.strip().splitlines()[-1].removeprefix("result: "))
    return results, json.loads(path.read_text())


def test_discovery_finds_the_eighth_problem_and_loads_it(with_root):
    from scoring.problem import load_problem

    found = discover_problems()
    assert len(found) == 8 and found[PROBLEM] == with_root / PROBLEM
    problem = load_problem(found[PROBLEM])
    assert problem.spec.precision == "fp32" and problem.bytes_moved({"n": 1000}) == 12 * 1000


def test_the_cli_lists_it(problems_root):
    done = command(problems_root, "scoring.run", "list")
    assert done.returncode == 0, done.stderr
    assert re.search(rf"^{PROBLEM}\s+fp32\s+Scale and add \(fp32\)$", done.stdout, re.MULTILINE), done.stdout


def test_its_house_kernel_scores_as_passed(scored):
    _, result = scored
    assert result["problem"]["name"] == PROBLEM and result["status"] == "passed"
    assert {s["shape_set"] for s in result["shapes"]} == {"visible", "held_out", "property"}
    assert all(s["status"] == "passed" for s in result["systems"][0]["shapes"])


def test_the_site_renders_its_problem_page_and_its_run(problems_root, scored, tmp_path):
    results, result = scored
    site = tmp_path / "site"
    done = command(
        problems_root,
        "board",
        f"results={results}",
        f"out={site}",
        "cpu=true",
        "transcripts=false",
        "jobs=1",
        "quiet=true",
    )
    assert done.returncode == 0, done.stderr
    page = (site / "problem" / f"{PROBLEM}.html").read_text()
    assert "Scale and add (fp32)" in page
    # A run from a modified checkout is not ranked (board/ranking_rules.py): it is listed among the other runs.
    listed = (
        page
        if result["ceiling"]["dirty"] is False
        else (site / "board" / f"{result['hardware']['peak']['key']}-other.html").read_text()
    )
    assert result["run_id"] in listed
    assert (site / "run" / f"{result['run_id']}.html").is_file()
    assert f"problem/{PROBLEM}.html" in (site / "problems.html").read_text()


def test_the_corpus_lists_its_cases_and_scores_them(with_root, tmp_path, capsys):
    from scoring.corpus import runner
    from scoring.corpus.cases import all_cases

    cases = {c.case_id: c.kind for c in all_cases() if c.problem == PROBLEM}
    assert cases == {f"{PROBLEM}/wrong/zeros": "known_wrong", f"{PROBLEM}/house": "house"}  # no adversaries
    assert runner.main(["device=cpu", f"out={tmp_path}", f"only={PROBLEM}/"]) == 0
    assert "as_expected: 2, mismatch: 0, could_not_run: 0, not_exercised: 0" in capsys.readouterr().out


def test_no_hand_written_table_of_problems_in_the_docs_misses_it(with_root):
    """docs/problems.md carries no per-problem table today. If one is added, every row must be written
    by hand for each new problem, and this fails until the eighth problem's row is there too."""
    doc = REPO / "docs" / "problems.md"
    committed = set(discover_problems()) - {PROBLEM}
    first_cells = {
        line.split("|")[1].strip().strip("`")
        for line in doc.read_text().splitlines()
        if line.startswith("|") and line.count("|") >= 3
    }
    if first_cells & committed:
        assert PROBLEM in first_cells, (
            f"{doc} lists problems in a hand-written table; adding a problem then "
            "needs a row there too (generate the table, or drop it)"
        )
