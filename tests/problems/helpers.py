"""Helpers for running whole scoring runs from tests on the CPU profile, quickly."""

import ast
import contextlib
import sys
import types
from pathlib import Path

from scoring.config import RunConfig
from scoring.run import run

FAST = dict(device="cpu", lines="none", audits=False, progress=False, min_calls=2, max_calls=3, warmup_s=0.0,
            check_seeds=2, budget_s=5.0, import_timeout_s=300.0, shape_timeout_s=300.0)


def score_on_cpu(problem: str, solution: Path | None, out: Path, **overrides) -> dict:
    config = RunConfig(problem=problem, solution=str(solution) if solution else "", out=str(out),
                       **{**FAST, **overrides})
    result, _path = run(config, ["(test)"])
    return result


def expected_statuses(solution: Path) -> dict:
    """The EXPECTED = {"cpu": ..., "gpu": ...} literal of a known-wrong solution, read without importing it."""
    for node in ast.parse(solution.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EXPECTED" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{solution} has no EXPECTED = {{'cpu': ..., 'gpu': ...}}")


def wrong_solutions(problem_dir: Path) -> list[Path]:
    return sorted(p for p in (problem_dir / "solutions" / "wrong").glob("*.py") if not p.name.startswith("_"))


@contextlib.contextmanager
def stand_in_module(name: str, **attributes):
    """sys.modules[name] is a bare module holding `attributes` for the duration (a library line's package that
    is not installed here, whose torch-only helpers are tested without it); whatever was there is put back."""
    saved = sys.modules.get(name)
    stub = types.ModuleType(name)
    for attribute, value in attributes.items():
        setattr(stub, attribute, value)
    sys.modules[name] = stub
    try:
        yield stub
    finally:
        if saved is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = saved
