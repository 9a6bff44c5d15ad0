"""The logic half of a problem: load `problems/<name>/problem.py` and check it against its data.

A problem.py defines plain functions of a shape (a dict of integer parameters):

    flops(shape) -> int                      dense-equivalent algorithmic FLOPs
    bytes_moved(shape) -> int                each input read once, each output written once
    output_spec(shape) -> (tuple, dtype)     what the solution must return
    make_weights(shape, gen, device) -> dict of static tensors (handed to the solution's prepare)
    make_inputs(shape, weights, gen, device) -> dict of per-call tensors (fresh for every call)
    reference(weights, inputs) -> Tensor     computed in higher precision than the solution (fp32/fp64)

and optionally `check(out, ref, weights, inputs, tolerance) -> CheckStats` where the default
element-wise relative check (scoring/checking.py) does not fit the problem.

Optionally too, a cheap verification that the grader runs on every call, timed ones included (outside
the timed region), so that a solution cannot skip work on the calls it guesses are not checked:

    VERIFY_METHOD = "..."                    one line: what verify_call checks and how
    verify_call(out, weights, inputs, gen, tolerance) -> CheckStats

`out` already has the declared shape, dtype and device; `weights` and `inputs` are the pristine dicts of the
call; `gen` is a generator on out's device seeded with a per-call secret, the source of all its randomness.
It runs in the judge, where no solution code is loaded; it must still not use the problem's forbidden operators
(no GEMM in a GEMM problem: products and sums; tests/problems/test_verify_call.py runs it with them refused,
so that a slow forbidden path cannot hide in it); it fails any NaN/Inf, never fails an output that passes the full check (bounds derived
from the tolerance with a stated safety factor), catches 1% of wrong rows (or the problem's unit of work)
with near certainty, and stays cheap: passes over the output and the inputs, or a sample of the work, never
the call's whole arithmetic (no O(M*N*K) work), with bounded extra memory. Shared pieces: scoring/call_checks.py;
their contracts in docs/problems.md, "Per-call verification".

The formulas are exercised on every declared shape at load time, so a formula that fails on a shape is
an error here, naming the file and the function, and never a crash halfway through a sweep.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable, Mapping

from scoring.spec import ProblemSpec, SpecError, load_spec

REQUIRED_FUNCTIONS = ("flops", "bytes_moved", "output_spec", "make_weights", "make_inputs", "reference")
# A fixed seed for the load-time formula check of property shapes; grading draws with its own seed.
_FORMULA_CHECK_SEED = 12345


@dataclass(frozen=True)
class Problem:
    spec: ProblemSpec
    module: ModuleType

    @property
    def name(self) -> str:
        return self.spec.name

    def flops(self, params: Mapping[str, int]) -> int:
        return int(self.module.flops(dict(params)))

    def bytes_moved(self, params: Mapping[str, int]) -> int:
        return int(self.module.bytes_moved(dict(params)))

    @property
    def custom_check(self) -> Callable | None:
        return getattr(self.module, "check", None)


def import_file(path: Path, module_name: str, *, folder_importable: bool = False) -> ModuleType:
    """Import a .py file under an explicit module name.

    With folder_importable, the file's folder goes first on sys.path so that a solution may keep helper
    modules beside it (the grader copies only the solution's own folder, never the repository's).
    """
    if folder_importable and str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _check_formulas(spec: ProblemSpec, module: ModuleType, path: Path) -> None:
    for profile in ("gpu", "cpu"):
        deck = spec.shapes_for(profile)
        for shape in deck.select("all", _FORMULA_CHECK_SEED):
            for function in ("flops", "bytes_moved"):
                try:
                    value = getattr(module, function)(dict(shape.params))
                except Exception as exc:  # the point is to report any failure with its location
                    raise SpecError(
                        path,
                        function,
                        f"fails on {profile} shape '{shape.name}' ({shape.label()}): {type(exc).__name__}: {exc}",
                        "make the formula total over the declared shapes",
                    ) from None
                if (
                    isinstance(value, bool)
                    or not isinstance(value, (int, float))
                    or not math.isfinite(value)
                    or value <= 0
                ):
                    raise SpecError(
                        path,
                        function,
                        f"returns {value!r} on {profile} shape '{shape.name}'",
                        "return a positive, finite count",
                    )
            try:
                dims, _dtype = module.output_spec(dict(shape.params))
                tuple(int(d) for d in dims)
            except Exception as exc:
                raise SpecError(
                    path,
                    "output_spec",
                    f"fails on {profile} shape '{shape.name}': {exc}",
                    "return (shape tuple, torch dtype)",
                ) from None


def load_problem(problem_dir: Path | str) -> Problem:
    """Load a problem's data and logic, and validate both; raises SpecError with file/field/fix."""
    problem_dir = Path(problem_dir)
    spec = load_spec(problem_dir)
    path = problem_dir / "problem.py"
    if not path.is_file():
        raise SpecError(path, "(file)", "does not exist", f"create it with {', '.join(REQUIRED_FUNCTIONS)}")
    module = import_file(path, f"ceiling_problem_{spec.name}")
    missing = [name for name in REQUIRED_FUNCTIONS if not callable(getattr(module, name, None))]
    if missing:
        raise SpecError(path, missing[0], "is not defined", f"define def {missing[0]}(...) (see scoring/problem.py)")
    _check_formulas(spec, module, path)
    return Problem(spec, module)
