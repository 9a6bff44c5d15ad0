"""Check a result dict for every field the site reads, before anything renders it.

The scorer's `load_result` checks only the top-level keys; the site also reads each system's status,
score and shapes, the hardware's peak row and the agent's identity. Each problem becomes an `Issue`
naming the file and the field (dotted path) and saying how to fix it; the file is then skipped.
"""

from __future__ import annotations

import math
from typing import Any

from scoring.result import SCHEMA, STATUS_SEVERITY

from .issues import Issue

_NUMBER = (int, float)
_REGENERATE = "regenerate the file with `python -m scoring.run` (results are written by the scorer, never by hand)"


class _Checker:
    def __init__(self, file: str):
        self.file = file
        self.issues: list[Issue] = []

    def bad(self, where: str, problem: str, fix: str = _REGENERATE) -> None:
        self.issues.append(Issue(self.file, where, problem, fix))

    def get(self, data: Any, where: str, key: str, kind, *, optional: bool = False) -> Any:
        path = f"{where}.{key}" if where else key
        if not isinstance(data, dict) or key not in data:
            if not optional:
                self.bad(path, "is missing")
            return None
        value = data[key]
        if value is None and optional:
            return None
        if kind is _NUMBER:
            ok = isinstance(value, _NUMBER) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            name = "number" if kind is _NUMBER else getattr(kind, "__name__", str(kind))
            self.bad(path, f"is {type(value).__name__} {_short(value)}, expected {name}")
            return None
        return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_result(data: Any, file: str, known_problems: set[str] | None = None) -> list[Issue]:
    """Every issue in one result dict; an empty list means the site can render it."""
    c = _Checker(file)
    if not isinstance(data, dict):
        c.bad("(file)", f"is a JSON {type(data).__name__}, not an object", "point the site at result files only")
        return c.issues
    schema = data.get("schema")
    if schema != SCHEMA:
        c.bad("schema", f"is {schema!r}, expected {SCHEMA!r}",
              "move files of other tools out of results/, or rescore with this version of the scorer")
        return c.issues
    run_id = c.get(data, "", "run_id", str)
    if run_id is not None and (not run_id or "/" in run_id or run_id.startswith(".")):
        c.bad("run_id", f"{run_id!r} is not usable as a file name", _REGENERATE)
    c.get(data, "", "created_utc", str)
    problem = c.get(data, "", "problem", dict)
    name = c.get(problem, "problem", "name", str) if problem is not None else None
    if name is not None and known_problems is not None and name not in known_problems:
        c.bad("problem.name", f"'{name}' is not a problem under problems/ (known: {', '.join(sorted(known_problems))})",
              "add the problem folder, or remove this result")
    _check_hardware(c, data)
    _check_agent(c, data)
    systems = c.get(data, "", "systems", list)
    if systems is not None:
        if not systems:
            c.bad("systems", "is empty", _REGENERATE)
        for i, system in enumerate(systems):
            _check_system(c, system, f"systems[{i}]", solution=(i == 0))
    return c.issues


def _check_hardware(c: _Checker, data: dict) -> None:
    hardware = c.get(data, "", "hardware", dict)
    if hardware is None:
        return
    c.get(hardware, "hardware", "profile", str)
    c.get(hardware, "hardware", "name", str)
    peak = c.get(hardware, "hardware", "peak", dict)
    if peak is None:
        return
    c.get(peak, "hardware.peak", "key", str)
    bandwidth = c.get(peak, "hardware.peak", "bandwidth_gbps", _NUMBER)
    if bandwidth is not None and not (bandwidth > 0 and math.isfinite(bandwidth)):
        c.bad("hardware.peak.bandwidth_gbps", f"is {bandwidth}, expected a positive number")
    tflops = c.get(peak, "hardware.peak", "tflops", dict)
    precision = data.get("problem", {}).get("precision") if isinstance(data.get("problem"), dict) else None
    if tflops is not None and isinstance(precision, str):
        c.get(tflops, "hardware.peak.tflops", precision, _NUMBER)


def _check_agent(c: _Checker, data: dict) -> None:
    if "agent" not in data:
        c.bad("agent", "is missing", "write \"agent\": null for a house kernel, or the agent's metadata")
        return
    agent = data["agent"]
    if agent is None:
        return
    if not isinstance(agent, dict):
        c.bad("agent", f"is {type(agent).__name__}, expected an object or null",
              "pass the scorer agent=FILE.json holding {harness, model, effort}")
        return
    fix = "give the agent JSON handed to the scorer (agent=FILE.json) a harness and a model"
    for key in ("harness", "model"):
        value = agent.get(key)
        if not isinstance(value, str) or not value.strip():
            c.bad(f"agent.{key}", "is missing or not a non-empty string", fix)
    for key in ("effort", "transcript", "run_dir"):
        if agent.get(key) is not None and not isinstance(agent[key], str):
            c.bad(f"agent.{key}", f"is {type(agent[key]).__name__}, expected a string", fix)
    for key in ("cost_usd", "wall_s"):
        value = agent.get(key)
        if value is not None and (not isinstance(value, _NUMBER) or isinstance(value, bool)):
            c.bad(f"agent.{key}", f"is {type(value).__name__}, expected a number", fix)


_SHAPE_TEXT = ("name", "status", "shape_set")
_SHAPE_NUMBERS = ("fraction", "achieved_tflops", "achieved_gbps", "flops", "bytes_moved")


def _shape_ok(shape: Any) -> bool:
    """The fast path for a well-formed shape (10,000 files x 40 shapes); the slow path names the field."""
    if type(shape) is not dict:
        return False
    for key in _SHAPE_TEXT:
        if type(shape.get(key)) is not str:
            return False
    for key in _SHAPE_NUMBERS:
        value = shape.get(key)
        if value is not None and type(value) not in (int, float):
            return False
    timing = shape.get("timing")
    return timing is None or type(timing) is dict


def _check_system(c: _Checker, system: Any, where: str, solution: bool) -> None:
    if not isinstance(system, dict):
        c.bad(where, f"is {type(system).__name__}, expected an object")
        return
    role = c.get(system, where, "role", str)
    if solution and role is not None and role != "solution":
        c.bad(f"{where}.role", f"is {role!r}; systems[0] must be the scored solution", _REGENERATE)
    c.get(system, where, "name", str)
    status = c.get(system, where, "status", str)
    if status is not None and status not in STATUS_SEVERITY:
        c.bad(f"{where}.status", f"{status!r} is not one of {', '.join(STATUS_SEVERITY)}")
    score = c.get(system, where, "score", dict)
    if score is not None:
        fraction = c.get(score, f"{where}.score", "fraction", _NUMBER)
        if fraction is not None and not (0.0 <= fraction <= 1.0):
            c.bad(f"{where}.score.fraction", f"is {fraction}, outside 0..1")
    c.get(system, where, "audits", list, optional=True)
    shapes = c.get(system, where, "shapes", list)
    for j, shape in enumerate(shapes or []):
        if _shape_ok(shape):
            continue
        at = f"{where}.shapes[{j}]"
        if not isinstance(shape, dict):
            c.bad(at, f"is {type(shape).__name__}, expected an object")
            continue
        c.get(shape, at, "name", str)
        c.get(shape, at, "status", str)
        c.get(shape, at, "shape_set", str)
        for key in ("fraction", "achieved_tflops", "achieved_gbps", "flops", "bytes_moved"):
            c.get(shape, at, key, _NUMBER, optional=True)
        c.get(shape, at, "timing", dict, optional=True)
