"""A problem folder shows the problem: outside its lab/ it holds only the definition and the solutions.

Bench scripts, probes and their measurements go to problems/<name>/lab/ (with a README.md indexing them), so
a stray script or log next to problem.py fails here rather than in a newcomer's first reading.
"""

import re
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = REPO_ROOT / "problems"

# Relative to problems/: what a problem folder may hold outside lab/.
ALLOWED = re.compile(
    r"""
    __init__\.py                                   # problems/ itself is a package
  | [a-z0-9_]+/(problem\.toml|problem\.py|prompt\.md|NOTES\.md)
  | [a-z0-9_]+/solutions/[a-z0-9_]+\.py            # house.py and any module it imports
  | [a-z0-9_]+/solutions/(baselines|wrong)/[^/]+
  | [a-z0-9_]+/lab/.+
""",
    re.VERBOSE,
)


def problem_files() -> list[str]:
    """Tracked files under problems/ (git ls-files), or every file where this is not a git checkout."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--", "problems"], cwd=REPO_ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
        files = [name for name in listed.split("\0") if name]
        if files:
            return [name.removeprefix("problems/") for name in files]
    except (OSError, subprocess.SubprocessError):
        pass
    return [str(p.relative_to(PROBLEMS)) for p in PROBLEMS.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def test_problem_folders_hold_only_definitions_solutions_and_lab():
    strays = [name for name in problem_files() if not ALLOWED.fullmatch(name)]
    assert not strays, (
        f"files under problems/ outside a definition, solutions/ or lab/: {strays}; "
        "move bench scripts, probes and measurements to problems/<name>/lab/"
    )


def test_every_problem_has_its_definition_and_house_kernel_and_every_lab_an_index():
    files = set(problem_files())
    problems = sorted({name.split("/")[0] for name in files if name.endswith("/problem.toml")})
    assert problems, "no problem.toml found under problems/"
    for name in problems:
        missing = [
            f for f in ("problem.toml", "problem.py", "prompt.md", "solutions/house.py") if f"{name}/{f}" not in files
        ]
        assert not missing, f"problems/{name}/ lacks {missing}"
        has_lab = any(f.startswith(f"{name}/lab/") for f in files)
        assert not has_lab or f"{name}/lab/README.md" in files, f"problems/{name}/lab/ has no README.md index"


def test_the_allow_list_refuses_a_stray_bench_script():
    assert not ALLOWED.fullmatch("softmax/bench_softmax.py")
    assert not ALLOWED.fullmatch("softmax/measurements/run_h100.log")
    assert not ALLOWED.fullmatch("softmax/solutions/notes/run.log")
    assert ALLOWED.fullmatch("softmax/lab/bench_softmax.py")
    assert ALLOWED.fullmatch("softmax/solutions/wrong/online_softmax_fp32.py")
