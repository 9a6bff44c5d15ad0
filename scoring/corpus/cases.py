"""The integrity corpus's cases and what each must score, read from the files themselves. Torch-free.

Three kinds of case, all scored by `python -m scoring.corpus` through `scoring.run`:

* adversary: `adversarial/<problem>/<name>.py`, declaring a module-level literal
      EXPECTED = {
          "class": "X04",                      # the exploit class it attempts; None for a robustness case
          "shape_set": "visible",              # optional: visible (default), held_out, property or all
          "cpu": {"status": "incorrect",       # the system status it must get in the CPU profile, or a list
                                               # of the statuses it may get (an outcome that turns on noise)
                  "shapes": {"square_64": "incorrect"},   # optional: per-shape statuses (or lists)
                  "detail": "X04: input mutation",        # optional: text some shape's detail (or a failed
                                                          # audit's outcome) must contain
                  "shape_timeout_s": 20,                  # optional: the per-shape limit for this case
                  "seed_secret": "9f3c...",               # optional: scored as a replay of this secret, for a
                                                          # defence that is drawn (the audited call) and
                                                          # fires on the draws this secret makes
                  "fraction_at_most": 0.6},               # optional: the most its score may reach: a time
                                                          # forger that passes must not have gained by it
          "gpu": {"not_exercised": "why"},     # a device where the exploit cannot be attempted says why
      }
* known_wrong: `problems/<name>/solutions/wrong/<name>.py` with EXPECTED = {"cpu": STATUS, "gpu": STATUS},
  scored on all shapes (the class id, if any, is read from the docstring's "Known wrong (Xnn)").
* house: `problems/<name>/solutions/house.py`, which must pass every shape with no failed audit.

EXPECTED is read with `ast` and never by importing the file; for a file that does not parse (the
syntax-error case), from the lines before the error. Bad declarations raise CaseError naming the file,
the field and the fix.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from scoring.result import STATUS_SEVERITY
from scoring.spec import discover_problems

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_ROOT = REPO_ROOT / "adversarial"
PROFILES = ("cpu", "gpu")
SHAPE_SETS = ("visible", "held_out", "property", "all")
KINDS = ("adversary", "known_wrong", "house")
_DEVICE_KEYS = {"status", "shapes", "detail", "shape_timeout_s", "seed_secret", "fraction_at_most"}
_CLASS_PATTERN = re.compile(r"X\d\d")


class CaseError(ValueError):
    pass


@dataclass(frozen=True)
class Expectation:
    """What one case must score on one profile; `not_exercised` says why it is not scored there."""

    status: str | tuple[str, ...] | None = None  # a tuple: any one of these
    shapes: dict[str, str | tuple[str, ...]] = field(default_factory=dict)
    detail: str | None = None
    shape_timeout_s: float | None = None
    seed_secret: str | None = None
    not_exercised: str | None = None
    fraction_at_most: float | None = None  # the most the system's score (fraction of peak) may reach

    def as_dict(self) -> dict:
        if self.not_exercised:
            return {"not_exercised": self.not_exercised}
        return {
            "status": _listed(self.status),
            "shapes": {n: _listed(s) for n, s in self.shapes.items()},
            "detail": self.detail,
            **({"seed_secret": self.seed_secret} if self.seed_secret else {}),
            **({"fraction_at_most": self.fraction_at_most} if self.fraction_at_most is not None else {}),
        }


def _listed(status):
    return list(status) if isinstance(status, tuple) else status


def allows(expected: str | tuple[str, ...] | None, observed: str) -> bool:
    """Whether an observed status is the expected one (or one of the expected ones)."""
    return observed in expected if isinstance(expected, tuple) else observed == expected


@dataclass(frozen=True)
class Case:
    case_id: str  # "fp8_gemm/X04_mutates_its_input", "fp8_gemm/wrong/zeros", "fp8_gemm/house"
    kind: str
    problem: str
    path: Path
    class_id: str | None
    shape_set: str
    expected: dict[str, Expectation]  # by profile: "cpu", "gpu"

    def display_path(self) -> str:
        return str(self.path.relative_to(REPO_ROOT)) if self.path.is_relative_to(REPO_ROOT) else str(self.path)


def read_expected(path: Path) -> object:
    """The EXPECTED literal of a solution file, without importing it."""
    text = path.read_text()
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:  # a deliberately broken file declares EXPECTED above the error
        tree = ast.parse("\n".join(text.splitlines()[: max((exc.lineno or 1) - 1, 0)]))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EXPECTED" for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                raise CaseError(f"{path}: EXPECTED must be a literal (no names or calls)") from None
    raise CaseError(f"{path}: no module-level EXPECTED = {{...}} literal; see scoring/corpus/cases.py for the schema")


def _check_status(path: Path, where: str, status: object, choices_allowed: bool = True) -> str | tuple[str, ...]:
    if choices_allowed and isinstance(status, list) and len(status) >= 2:
        return tuple(_check_status(path, where, s, choices_allowed=False) for s in status)
    if not isinstance(status, str) or status not in STATUS_SEVERITY:
        raise CaseError(
            f"{path}: {where} is {status!r}; use one of {', '.join(STATUS_SEVERITY)}"
            + (" (or a list of two or more of them)" if choices_allowed else "")
        )
    return status


def parse_expectation(path: Path, profile: str, entry: object) -> Expectation:
    where = f"EXPECTED[{profile!r}]"
    if not isinstance(entry, dict):
        raise CaseError(f"{path}: {where} must be a dict with 'status' (or 'not_exercised': 'why'), got {entry!r}")
    if "not_exercised" in entry:
        reason = entry["not_exercised"]
        if set(entry) != {"not_exercised"} or not isinstance(reason, str) or not reason.strip():
            raise CaseError(f"{path}: {where} with 'not_exercised' must hold only that key, with a non-empty reason")
        return Expectation(not_exercised=reason)
    unknown = set(entry) - _DEVICE_KEYS
    if unknown:
        raise CaseError(
            f"{path}: {where} has unknown keys {sorted(unknown)}; allowed: {sorted(_DEVICE_KEYS)} or 'not_exercised'"
        )
    if "status" not in entry:
        raise CaseError(f"{path}: {where} has no 'status'; give the system status it must get")
    shapes = entry.get("shapes", {})
    if not isinstance(shapes, dict):
        raise CaseError(f"{path}: {where}['shapes'] must map shape names to statuses")
    shapes = {name: _check_status(path, f"{where}['shapes'][{name!r}]", status) for name, status in shapes.items()}
    detail = entry.get("detail")
    if detail is not None and (not isinstance(detail, str) or not detail):
        raise CaseError(f"{path}: {where}['detail'] must be a non-empty string (text the detail contains)")
    timeout = entry.get("shape_timeout_s")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise CaseError(f"{path}: {where}['shape_timeout_s'] must be a positive number of seconds")
    secret = entry.get("seed_secret")
    if secret is not None and not (isinstance(secret, str) and secret and all(c in "0123456789abcdef" for c in secret)):
        raise CaseError(f"{path}: {where}['seed_secret'] must be lowercase hex digits (a result's seeds.secret)")
    at_most = entry.get("fraction_at_most")
    if at_most is not None and (isinstance(at_most, bool) or not isinstance(at_most, (int, float)) or at_most <= 0):
        raise CaseError(f"{path}: {where}['fraction_at_most'] must be a positive number (a fraction of the peak)")
    return Expectation(
        _check_status(path, f"{where}['status']", entry["status"]),
        dict(shapes),
        detail,
        float(timeout) if timeout is not None else None,
        secret,
        fraction_at_most=float(at_most) if at_most is not None else None,
    )


def adversary_case(path: Path, problem: str) -> Case:
    expected = read_expected(path)
    if not isinstance(expected, dict):
        raise CaseError(f"{path}: EXPECTED must be a dict with 'class', 'cpu' and 'gpu'")
    missing = [k for k in ("class", *PROFILES) if k not in expected]
    unknown = set(expected) - {"class", "shape_set", *PROFILES}
    if missing or unknown:
        raise CaseError(
            f"{path}: EXPECTED is missing {missing} / has unknown keys {sorted(unknown)}; it needs "
            "'class' (an id such as 'X04', or None), 'cpu' and 'gpu', and may give 'shape_set'"
        )
    class_id = expected["class"]
    if class_id is not None and not (isinstance(class_id, str) and _CLASS_PATTERN.fullmatch(class_id)):
        raise CaseError(
            f"{path}: EXPECTED['class'] is {class_id!r}; use an id of shared/INTEGRITY.md such as 'X04', "
            "or None for a robustness case"
        )
    shape_set = expected.get("shape_set", "visible")
    if shape_set not in SHAPE_SETS:
        raise CaseError(f"{path}: EXPECTED['shape_set'] is {shape_set!r}; use one of {', '.join(SHAPE_SETS)}")
    return Case(
        f"{problem}/{path.stem}",
        "adversary",
        problem,
        path,
        class_id,
        shape_set,
        {p: parse_expectation(path, p, expected[p]) for p in PROFILES},
    )


def known_wrong_case(path: Path, problem: str) -> Case:
    expected = read_expected(path)
    if not isinstance(expected, dict) or set(expected) != set(PROFILES):
        raise CaseError(f"{path}: EXPECTED must be {{'cpu': STATUS, 'gpu': STATUS}}, got {expected!r}")
    docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
    found = re.search(r"Known wrong \((X\d\d)", docstring)
    return Case(
        f"{problem}/wrong/{path.stem}",
        "known_wrong",
        problem,
        path,
        found.group(1) if found else None,
        "all",
        {p: Expectation(_check_status(path, f"EXPECTED[{p!r}]", expected[p])) for p in PROFILES},
    )


def house_case(problem: str, directory: Path) -> Case:
    passed = Expectation("passed")
    return Case(
        f"{problem}/house",
        "house",
        problem,
        directory / "solutions" / "house.py",
        None,
        "all",
        {p: passed for p in PROFILES},
    )


def _solution_files(folder: Path) -> list[Path]:
    """Scored files of a folder: helpers beside them start with an underscore."""
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


def corpus_cases(root: Path = CORPUS_ROOT) -> list[Case]:
    problems = discover_problems()
    cases = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        if folder.name not in problems:
            raise CaseError(
                f"{folder}: no problem named '{folder.name}'; corpus folders are named after "
                f"problems ({', '.join(sorted(problems))})"
            )
        cases += [adversary_case(path, folder.name) for path in _solution_files(folder)]
    return cases


def all_cases() -> list[Case]:
    """Adversaries, then every problem's known-wrong solutions and house kernel."""
    cases = corpus_cases()
    for problem, directory in sorted(discover_problems().items()):
        cases += [known_wrong_case(path, problem) for path in _solution_files(directory / "solutions" / "wrong")]
        cases.append(house_case(problem, directory))
    return cases
