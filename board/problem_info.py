"""A problem's published description: its data (scoring.spec), prompt, and formula source.

The FLOP and byte formulas live in the problem's problem.py, which imports torch; their source is
cut out with `ast` (never imported), so the page shows exactly the code the scorer runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from scoring.spec import ProblemSpec, SpecError, discover_problems, load_spec

from .issues import Issue

FORMULA_FUNCTIONS = ("flops", "bytes_moved")


@dataclass(frozen=True)
class ProblemInfo:
    spec: ProblemSpec
    prompt: str
    formulas: str  # source of flops() and bytes_moved()


def formula_source(problem_py: Path) -> str:
    try:
        source = problem_py.read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, SyntaxError):
        return ""
    parts = [
        ast.get_source_segment(source, node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in FORMULA_FUNCTIONS
    ]
    return "\n\n\n".join(p for p in parts if p)


def load_problems(root: Path | None) -> tuple[dict[str, ProblemInfo], list[Issue]]:
    problems, issues = {}, []
    for name, directory in discover_problems(root).items():
        try:
            spec = load_spec(directory)
        except SpecError as error:
            issues.append(
                Issue(
                    error.path,
                    error.field_name,
                    str(error).split(": field", 1)[-1].strip(),
                    "fix the problem data (see docs/problems.md)",
                )
            )
            continue
        prompt_path = directory / "prompt.md"
        prompt = prompt_path.read_text(encoding="utf-8") if prompt_path.is_file() else ""
        problems[name] = ProblemInfo(spec, prompt, formula_source(directory / "problem.py"))
    return problems, issues
