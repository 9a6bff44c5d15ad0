"""The agent's workspace: a fresh directory holding only a problem's public files.

It holds prompt.md, the reference (problem.py), a starter solution.py, problem.json (title, summary,
precision, tolerance, forbidden operators and the *visible* shapes only) and check.py, a self-contained
checker of the visible shapes. Held-out and property shapes, audits, the grader and the repository are
never copied; `public_problem` builds problem.json from the parsed spec field by field, so a new
private key in problem.toml cannot leak by default.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from scoring.spec import load_spec

CHECK_SCRIPT = Path(__file__).with_name("public") / "check.py"
STARTER = '''"""Your solution: see prompt.md for the interface, and run `python check.py` to check it."""


def run(state, *args, **inputs):
    raise NotImplementedError("write the kernel here")
'''
AGENT_NOTE = """

## Your workspace
You are working in `{workspace}`, which holds prompt.md (this text), problem.py (the reference and the input
generator), problem.json (the visible shapes and tolerances), a starter `solution.py` and `check.py`.
Write your answer into `solution.py` in this folder: only that file is scored. Check it with
`python check.py` (correctness on the visible shapes and a rough time): in this workspace it replaces any
`python -m scoring.run` command above, whose repository is not here. The official scorer runs more shapes.
"""


def public_problem(problem_dir: Path) -> dict:
    spec = load_spec(problem_dir)

    def shapes(profile: str) -> list[dict]:
        return [{"name": s.name, "params": dict(s.params)} for s in spec.shapes_for(profile).visible]

    return {
        "name": problem_dir.name,
        "title": spec.title,
        "summary": spec.summary,
        "precision": spec.precision,
        "tolerance": {"rtol": spec.tolerance.rtol, "atol": spec.tolerance.atol, "normwise": spec.tolerance.normwise},
        "forbidden_ops": list(spec.forbidden_ops),
        "visible_shapes": {"gpu": shapes("gpu"), "cpu": shapes("cpu")},
    }


def make_workspace(problem_dir: Path, dest: Path) -> Path:
    """Fill `dest` (absent, or an empty folder such as a fresh tmpfs) with the public files of `problem_dir`;
    returns `dest`."""
    problem_dir, dest = Path(problem_dir), Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise FileExistsError(f"{dest}: a workspace must be a fresh, empty directory; remove it or pick another")
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(problem_dir / "prompt.md", dest / "prompt.md")
    shutil.copyfile(problem_dir / "problem.py", dest / "problem.py")
    starter = problem_dir / "solutions" / "starter.py"
    (dest / "solution.py").write_text(starter.read_text() if starter.is_file() else STARTER)
    (dest / "problem.json").write_text(json.dumps(public_problem(problem_dir), indent=1) + "\n")
    shutil.copyfile(CHECK_SCRIPT, dest / "check.py")
    return dest


def agent_prompt(problem_dir: Path, workspace_path: str) -> str:
    """The text given to the agent: the problem's prompt plus how this workspace works."""
    return (Path(problem_dir) / "prompt.md").read_text().rstrip() + AGENT_NOTE.format(workspace=workspace_path)
