"""The declarative half of a problem: parse and validate `problems/<name>/problem.toml`.

This module is torch-free on purpose: the site build and the harnesses read problem data through it
without touching a GPU stack. Every error names the file, the field and the fix (`SpecError`).

A problem.toml looks like this (fp8_gemm's is the worked example):

    title = "FP8 GEMM"
    summary = "..."
    precision = "fp8"                  # which peak_tflops column applies (see scoring/peaks.toml)
    forbidden_ops = ["_scaled_mm"]     # aten operator names intercepted while the solution runs
    [tolerance]
    rtol = 1e-2                        # per element: |out - ref| <= atol + rtol * |ref|
    atol = 1e-2
    normwise = 5e-3                    # ||out - ref|| / ||ref||
    [[shapes.visible]]                 # shown to agents in the prompt
    name = "square_8192"
    M = 8192
    [[shapes.held_out]]                # never shown to agents
    [shapes.property]                  # drawn fresh on every grading run
    count = 3
    M = { min = 1, max = 8192, log = true, multiple_of = 1 }
    [cpu]                              # the small shapes of the CPU profile (CI, laptops)
    [[cpu.shapes.visible]] ...
"""

from __future__ import annotations

import difflib
import hashlib
import math
import os
import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

SHAPE_SETS = ("visible", "held_out", "property")
PRECISIONS = ("fp8", "bf16", "fp16", "tf32", "fp32", "fp64")

_TOP_LEVEL_KEYS = {
    "title": "a one-line title",
    "summary": "a paragraph saying what the kernel computes",
    "precision": f"the precision whose peak applies, one of {PRECISIONS}",
    "forbidden_ops": "a list of aten operator names the solution may not call",
    "forbidden_imports": "a list of module names the solution may not import",
    "tolerance": "a table with rtol, atol and normwise",
    "shapes": "a table with visible, held_out and property shapes",
    "cpu": "a table with the CPU profile's shapes",
    "audits": "a list of hardware-counter audits",
    "notes": "free text shown on the problem page",
}
_REQUIRED_TOP_LEVEL = ("title", "summary", "precision", "tolerance", "shapes", "cpu")
_TOLERANCE_KEYS = ("rtol", "atol", "normwise")
_RANGE_KEYS = {"min", "max", "log", "multiple_of", "choices"}
_AUDIT_KINDS = {
    "tensor_precision": "hardware counters: which tensor-pipe source precision executed, and how many FLOPs",
}


class SpecError(ValueError):
    """A problem.toml that cannot be used; the message names the file, the field and the fix."""

    def __init__(self, path: Path | str, field_name: str, problem: str, fix: str):
        self.path = str(path)
        self.field_name = field_name
        super().__init__(f"{path}: field '{field_name}': {problem}. Fix: {fix}")


@dataclass(frozen=True)
class Shape:
    """One shape a solution is scored on: a name, the set it belongs to, and integer parameters."""

    name: str
    shape_set: str  # "visible", "held_out" or "property"
    params: Mapping[str, int]

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    normwise: float


@dataclass(frozen=True)
class ParamRange:
    """How one parameter of a property-drawn shape is drawn."""

    min: int = 1
    max: int = 1
    log: bool = False
    multiple_of: int = 1
    choices: tuple[int, ...] = ()

    def draw(self, rng: random.Random) -> int:
        if self.choices:
            return rng.choice(self.choices)
        if self.log:
            value = math.exp(rng.uniform(math.log(self.min), math.log(self.max)))
        else:
            value = rng.uniform(self.min, self.max)
        value = max(self.min, int(round(value / self.multiple_of)) * self.multiple_of)
        return min(value, self.max - (self.max % self.multiple_of))


@dataclass(frozen=True)
class PropertyShapes:
    count: int
    ranges: Mapping[str, ParamRange]
    # Shared parameters that are not drawn (e.g. a fixed head dim): copied into every drawn shape.
    fixed: Mapping[str, int] = field(default_factory=dict)

    def draw(self, seed: int) -> tuple[Shape, ...]:
        rng = random.Random(seed)
        shapes = []
        for index in range(self.count):
            params = dict(self.fixed)
            params.update({name: rng_range.draw(rng) for name, rng_range in self.ranges.items()})
            shapes.append(Shape(f"property_{index}", "property", params))
        return tuple(shapes)


@dataclass(frozen=True)
class ShapeDeck:
    visible: tuple[Shape, ...]
    held_out: tuple[Shape, ...]
    property: PropertyShapes | None

    def select(self, which: str, property_seed: int) -> tuple[Shape, ...]:
        """Shapes for `which` in ("visible", "held_out", "property", "all")."""
        drawn = self.property.draw(property_seed) if self.property else ()
        by_set = {"visible": self.visible, "held_out": self.held_out, "property": drawn}
        if which == "all":
            return self.visible + self.held_out + drawn
        return by_set[which]


@dataclass(frozen=True)
class Audit:
    """A counter audit of one call drawn at random from the run's timed calls (scoring/audit.py)."""

    kind: str
    expect: str  # for tensor_precision: the precision the tensor pipe must report


@dataclass(frozen=True)
class ProblemSpec:
    name: str
    directory: Path
    title: str
    summary: str
    precision: str
    tolerance: Tolerance
    forbidden_ops: tuple[str, ...]
    forbidden_imports: tuple[str, ...]
    gpu_shapes: ShapeDeck
    cpu_shapes: ShapeDeck
    audits: tuple[Audit, ...]
    notes: str
    content_sha256: str

    def shapes_for(self, profile: str) -> ShapeDeck:
        return self.cpu_shapes if profile == "cpu" else self.gpu_shapes


def suggest(word: str, options: list[str] | tuple[str, ...] | set[str]) -> str:
    """' (did you mean X?)' for a near miss, else ''."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _require_number(path: Path, field_name: str, value: Any, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(path, field_name, f"{value!r} is not a number", "write a plain number such as 1e-2")
    if not math.isfinite(value) or (positive and value < 0):
        raise SpecError(path, field_name, f"{value!r} is not a finite non-negative number", "use a value >= 0")
    return float(value)


def _require_int(path: Path, field_name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(path, field_name, f"{value!r} is not an integer", "write a whole number without quotes")
    return value


def _parse_shape(path: Path, where: str, shape_set: str, table: Any, index: int) -> Shape:
    if not isinstance(table, dict):
        raise SpecError(path, where, "is not a table", "write [[...]] tables with name = ... and integer parameters")
    name = table.get("name", f"{shape_set}_{index}")
    if not isinstance(name, str) or not name:
        raise SpecError(path, f"{where}.name", f"{name!r} is not a non-empty string", 'write name = "square_8192"')
    params = {key: _require_int(path, f"{where}.{key}", value) for key, value in table.items() if key != "name"}
    if not params:
        raise SpecError(path, where, "has no parameters", "give the shape's integer parameters, e.g. M = 8192")
    return Shape(name, shape_set, params)


def _parse_range(path: Path, where: str, table: Any) -> ParamRange:
    if isinstance(table, int) and not isinstance(table, bool):
        return ParamRange(min=table, max=table)
    if not isinstance(table, dict):
        raise SpecError(
            path,
            where,
            f"{table!r} is neither an integer nor a range table",
            "write { min = 1, max = 8192, log = true } or a fixed integer",
        )
    unknown = set(table) - _RANGE_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise SpecError(
            path, f"{where}.{key}", "unknown key" + suggest(key, _RANGE_KEYS), f"use only {sorted(_RANGE_KEYS)}"
        )
    if "choices" in table:
        choices = table["choices"]
        if not isinstance(choices, list) or not choices:
            raise SpecError(path, f"{where}.choices", "is not a non-empty list", "write choices = [64, 128]")
        return ParamRange(choices=tuple(_require_int(path, f"{where}.choices", c) for c in choices))
    for key in ("min", "max"):
        if key not in table:
            raise SpecError(path, f"{where}.{key}", "is missing", f"add {key} = <integer>")
    low = _require_int(path, f"{where}.min", table["min"])
    high = _require_int(path, f"{where}.max", table["max"])
    multiple = _require_int(path, f"{where}.multiple_of", table.get("multiple_of", 1))
    if low < 1 or high < low or multiple < 1 or high < multiple:
        raise SpecError(
            path,
            where,
            f"range min={low} max={high} multiple_of={multiple} is empty or non-positive",
            "use 1 <= min <= max and multiple_of <= max",
        )
    log = table.get("log", False)
    if not isinstance(log, bool):
        raise SpecError(path, f"{where}.log", f"{log!r} is not true or false", "write log = true")
    return ParamRange(min=low, max=high, log=log, multiple_of=multiple)


def _parse_deck(path: Path, where: str, table: Any) -> ShapeDeck:
    if not isinstance(table, dict):
        raise SpecError(path, where, "is not a table", "add [[" + where + ".visible]] tables")
    unknown = set(table) - set(SHAPE_SETS)
    if unknown:
        key = sorted(unknown)[0]
        raise SpecError(
            path, f"{where}.{key}", "unknown shape set" + suggest(key, SHAPE_SETS), f"use only {SHAPE_SETS}"
        )
    sets: dict[str, tuple[Shape, ...]] = {}
    for shape_set in ("visible", "held_out"):
        entries = table.get(shape_set)
        if not isinstance(entries, list) or not entries:
            raise SpecError(
                path, f"{where}.{shape_set}", "is missing or empty", f"add at least one [[{where}.{shape_set}]] table"
            )
        sets[shape_set] = tuple(
            _parse_shape(path, f"{where}.{shape_set}[{i}]", shape_set, entry, i) for i, entry in enumerate(entries)
        )
    names = [s.name for s in sets["visible"] + sets["held_out"]]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SpecError(path, where, f"shape name '{duplicates[0]}' is used twice", "give every shape a unique name")
    prop = table.get("property")
    property_shapes = None
    if prop is not None:
        if not isinstance(prop, dict) or "count" not in prop:
            raise SpecError(path, f"{where}.property", "has no count", "add count = 3")
        count = _require_int(path, f"{where}.property.count", prop["count"])
        ranges, fixed = {}, {}
        for key, value in prop.items():
            if key == "count":
                continue
            parsed = _parse_range(path, f"{where}.property.{key}", value)
            if parsed.min == parsed.max and not parsed.choices:
                fixed[key] = parsed.min
            else:
                ranges[key] = parsed
        visible_keys = set(sets["visible"][0].params)
        drawn_keys = set(ranges) | set(fixed)
        if drawn_keys != visible_keys:
            raise SpecError(
                path,
                f"{where}.property",
                f"draws {sorted(drawn_keys)} but shapes have {sorted(visible_keys)}",
                "give a range (or a fixed integer) for exactly the shape parameters",
            )
        property_shapes = PropertyShapes(count, ranges, fixed)
    return ShapeDeck(sets["visible"], sets["held_out"], property_shapes)


def _parse_audits(path: Path, entries: Any) -> tuple[Audit, ...]:
    if not isinstance(entries, list):
        raise SpecError(path, "audits", "is not a list of tables", "write [[audits]] tables")
    audits = []
    for i, entry in enumerate(entries):
        where = f"audits[{i}]"
        if not isinstance(entry, dict):
            raise SpecError(path, where, "is not a table", "write [[audits]] with kind and expect")
        kind = entry.get("kind")
        if kind not in _AUDIT_KINDS:
            raise SpecError(
                path,
                f"{where}.kind",
                f"{kind!r} is not a known audit" + suggest(str(kind), _AUDIT_KINDS),
                f"use one of {sorted(_AUDIT_KINDS)}",
            )
        if "shape" in entry:
            raise SpecError(
                path,
                f"{where}.shape",
                "is no longer used (the audited call is drawn at random from "
                "the run's timed calls, in a scoring worker)",
                "remove the shape",
            )
        expect = entry.get("expect")
        if expect not in PRECISIONS:
            raise SpecError(path, f"{where}.expect", f"{expect!r} is not a precision", f"use one of {PRECISIONS}")
        audits.append(Audit(kind, expect))
    return tuple(audits)


def _string_list(path: Path, field_name: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise SpecError(path, field_name, f"{value!r} is not a list of strings", 'write ["_scaled_mm", "mm"]')
    return tuple(value)


def load_spec(problem_dir: Path | str) -> ProblemSpec:
    """Read and validate `<problem_dir>/problem.toml`."""
    problem_dir = Path(problem_dir)
    path = problem_dir / "problem.toml"
    if not path.is_file():
        raise SpecError(path, "(file)", "does not exist", "create problem.toml (see scoring/spec.py's docstring)")
    raw_bytes = path.read_bytes()
    try:
        data = tomllib.loads(raw_bytes.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError(
            path, "(syntax)", f"is not valid TOML: {exc}", "fix the TOML syntax at the position given"
        ) from None

    for key in data:
        if key not in _TOP_LEVEL_KEYS:
            raise SpecError(
                path,
                key,
                "unknown key" + suggest(key, _TOP_LEVEL_KEYS),
                f"remove it or use one of {sorted(_TOP_LEVEL_KEYS)}",
            )
    for key in _REQUIRED_TOP_LEVEL:
        if key not in data:
            raise SpecError(path, key, "is missing", f"add {key}: {_TOP_LEVEL_KEYS[key]}")
    for key in ("title", "summary"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise SpecError(path, key, "is not a non-empty string", f'write {key} = "..."')
    precision = data["precision"]
    if precision not in PRECISIONS:
        raise SpecError(
            path,
            "precision",
            f"{precision!r} is not a known precision" + suggest(str(precision), PRECISIONS),
            f"use one of {PRECISIONS}",
        )

    tolerance_table = data["tolerance"]
    if not isinstance(tolerance_table, dict):
        raise SpecError(path, "tolerance", "is not a table", "write [tolerance] with rtol, atol, normwise")
    for key in tolerance_table:
        if key not in _TOLERANCE_KEYS:
            raise SpecError(
                path, f"tolerance.{key}", "unknown key" + suggest(key, _TOLERANCE_KEYS), f"use only {_TOLERANCE_KEYS}"
            )
    for key in _TOLERANCE_KEYS:
        if key not in tolerance_table:
            raise SpecError(path, f"tolerance.{key}", "is missing", f"add {key} = <number>")
    tolerance = Tolerance(*(_require_number(path, f"tolerance.{k}", tolerance_table[k]) for k in _TOLERANCE_KEYS))

    cpu = data["cpu"]
    if not isinstance(cpu, dict) or set(cpu) != {"shapes"}:
        raise SpecError(path, "cpu", "must be a table holding only 'shapes'", "write [[cpu.shapes.visible]] tables")

    return ProblemSpec(
        name=problem_dir.name,
        directory=problem_dir,
        title=data["title"].strip(),
        summary=data["summary"].strip(),
        precision=precision,
        tolerance=tolerance,
        forbidden_ops=_string_list(path, "forbidden_ops", data.get("forbidden_ops", [])),
        forbidden_imports=_string_list(path, "forbidden_imports", data.get("forbidden_imports", [])),
        gpu_shapes=_parse_deck(path, "shapes", data["shapes"]),
        cpu_shapes=_parse_deck(path, "cpu.shapes", cpu["shapes"]),
        audits=_parse_audits(path, data.get("audits", [])),
        notes=str(data.get("notes", "")).strip(),
        content_sha256=problem_content_sha256(problem_dir),
    )


def problem_content_sha256(problem_dir: Path) -> str:
    """Hash of everything that defines the problem (data, logic, prompt, and the shared helpers its verify_call
    is built from): not its solutions."""
    digest = hashlib.sha256()
    for file in (problem_dir / "problem.toml", problem_dir / "problem.py", problem_dir / "prompt.md", CALL_CHECKS):
        if file.is_file():
            digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


CALL_CHECKS = Path(__file__).with_name("call_checks.py")


# The folder of problem folders is the repository's problems/ unless this environment variable names
# another (a problem kept outside the repository, or a test's temporary copy). Every consumer finds problems
# through problems_root(): scoring.run, the corpus, the site build, the harnesses; child processes inherit it.
PROBLEMS_ROOT_ENV = "CEILING_PROBLEMS_ROOT"


def problems_root() -> Path:
    override = os.environ.get(PROBLEMS_ROOT_ENV, "").strip()
    return Path(override).resolve() if override else Path(__file__).resolve().parent.parent / "problems"


def discover_problems(root: Path | None = None) -> dict[str, Path]:
    """Every folder under problems/ holding a problem.toml is a problem; nothing else is registered."""
    root = root or problems_root()
    return {p.parent.name: p.parent for p in sorted(root.glob("*/problem.toml"))}


def find_problem(name: str, root: Path | None = None) -> Path:
    found = discover_problems(root)
    if name not in found:
        raise SpecError(
            root or problems_root(),
            "problem",
            f"no problem named '{name}'" + suggest(name, found),
            f"use one of {sorted(found)}",
        )
    return found[name]
