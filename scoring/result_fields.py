"""The first pass over a result file: every field a reader shows is present with the type its model gives.

Torch-free and free of site libraries, so the site build and `python -m scoring.verify` share it.
Which fields exist, which are required, their types, enums and whether they may be null are read from the
typed models (scoring/result_model.py), not restated here; this module chooses the fields the site reads
(statuses, scores, shapes, timings, the peak row, the agent's identity, a re-scored run's provenance and
published verdict, a system's failure class) and keeps the checks a model cannot say with the fix a reader
needs (a run id usable as a file name, a peak for the problem's precision, a re-scored run's link parts).
A problem is an `Issue` naming the file, the dotted field path and the fix. The second pass
(result_checks.py) compares the values with each other, and runs only on a result this pass found well
typed, so it can index and divide without guarding every step.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import typing
from dataclasses import dataclass
from typing import Any, Literal

from scoring.dataclass_schema import json_key, model_fields, plain_type
from scoring.result import SCHEMA
from scoring.result_model import (
    GIT_COMMIT_PATTERN,
    GITHUB_REPOSITORY_PATTERN,
    MAX_COUNT,
    MAX_TEXT,
    REPOSITORY_PATH_PATTERN,
    SHA256_HEX_PATTERN,
    Audit,
    Failure,
    GpuState,
    Hardware,
    Peak,
    Problem,
    Result,
    Score,
    Shape,
    Spread,
    System,
    Timing,
)

NUMBER = (int, float)
REGENERATE = "regenerate the file with `python -m scoring.run` (results are written by the scorer, never by hand)"
GITHUB_REPOSITORY = re.compile(GITHUB_REPOSITORY_PATTERN)
GIT_COMMIT = re.compile(GIT_COMMIT_PATTERN)
SHA256_HEX = re.compile(SHA256_HEX_PATTERN)
REPOSITORY_PATH = re.compile(REPOSITORY_PATH_PATTERN)


@dataclass(frozen=True)
class Issue:
    """A bad input file, reported as file, field, what is wrong and the fix (never a traceback)."""

    file: str
    field: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.file}: field '{self.field}': {self.problem}. Fix: {self.fix}"


def is_number(value: Any) -> bool:
    return isinstance(value, NUMBER) and not isinstance(value, bool)  # True is an int to Python, not a number here


def is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_COUNT


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class FieldType:
    """What one model field allows, as the checks below test it."""

    key: str
    kind: Any  # NUMBER, int (a count: every int the checks read is one), str, bool, dict, list, or None (any)
    choices: tuple[str, ...] | None  # the allowed strings of an enum
    required: bool
    nullable: bool
    positive: bool  # a divisor (a peak, a time): finite and above 0


@functools.cache
def field_types(model: type) -> dict[str, FieldType]:
    """A model's fields by JSON key, read once from its type hints (scoring/result_model.py)."""
    types = {}
    for model_field, hint in model_fields(model):
        base, keywords, nullable = plain_type(hint)
        origin = typing.get_origin(base) or base
        choices = tuple(typing.get_args(base)) if origin is Literal else None
        if choices:
            kind = str
        elif base is float:
            kind = NUMBER
        elif base in (int, str, bool, list, dict) or origin in (list, dict):
            kind = origin
        else:
            kind = dict if dataclasses.is_dataclass(base) else None
        positive = keywords.get("exclusiveMinimum") == 0
        types[json_key(model_field)] = FieldType(
            json_key(model_field), kind, choices, model_field.metadata["required"], nullable, positive
        )
    return types


class Fields:
    """Collects the issues of one file; `get` and `typed` return a field's value only when its type is right."""

    def __init__(self, file: str):
        self.file = file
        self.issues: list[Issue] = []

    def bad(self, where: str, problem: str, fix: str = REGENERATE) -> None:
        self.issues.append(Issue(self.file, where, problem, fix))

    def typed(self, data: Any, where: str, model: type, key: str) -> Any:
        """Field `key` of an object of `model`, checked as the model types it: missing only where it may be, null
        only where it may be, of its type (a count a whole number in 0..2**63, a divisor above 0)."""
        field_type = field_types(model)[key]
        path = f"{where}.{key}" if where else key
        if not isinstance(data, dict) or key not in data:
            if field_type.required:
                self.bad(path, "is missing")
            return None
        value = data[key]
        if (value is None and field_type.nullable) or field_type.kind is None:
            return value
        value = self._of_kind(value, field_type.kind, path)
        if value is not None and field_type.choices and value not in field_type.choices:
            self.bad(path, f"{short(value)} is not one of {', '.join(field_type.choices)}")
            return None
        if value is not None and field_type.positive and not (math.isfinite(value) and value > 0):
            self.bad(path, f"is {value}, expected a finite number above 0")
        return value

    def typed_all(self, data: Any, where: str, model: type, keys: tuple[str, ...]) -> None:
        for key in keys:
            self.typed(data, where, model, key)

    def get(self, data: Any, where: str, key: str, kind, *, optional: bool = False) -> Any:
        """A field outside the models' reach (a peak of the problem's precision): missing or null only if optional."""
        path = f"{where}.{key}" if where else key
        if not isinstance(data, dict) or key not in data:
            if not optional:
                self.bad(path, "is missing")
            return None
        if data[key] is None and optional:
            return None
        return self._of_kind(data[key], kind, path)

    def _of_kind(self, value: Any, kind, path: str) -> Any:
        if kind is NUMBER:
            ok, name = is_number(value), "number"
        elif kind is int:
            ok, name = is_count(value), "whole number in 0..2**63"
        else:
            ok, name = isinstance(value, kind), getattr(kind, "__name__", str(kind))
        if not ok:
            self.bad(path, f"is {type(value).__name__} {short(value)}, expected {name}")
            return None
        return value


def check_fields(data: Any, file: str) -> list[Issue]:
    """Every missing or mistyped field of one result dict; an empty list means the values can be compared."""
    c = Fields(file)
    if not isinstance(data, dict):
        c.bad("(file)", f"is a JSON {type(data).__name__}, not an object", "point the reader at result files only")
        return c.issues
    schema = data.get("schema")
    if schema != SCHEMA:
        c.bad(
            "schema",
            f"is {short(schema)}, expected {SCHEMA!r}",
            "move files of other tools out of the results folder, or rescore with this version of the scorer",
        )
        return c.issues
    run_id = c.typed(data, "", Result, "run_id")
    if run_id is not None and (not run_id or "/" in run_id or run_id.startswith(".")):
        c.bad("run_id", f"{run_id!r} is not usable as a file name")
    c.typed(data, "", Result, "created_utc")
    problem = c.typed(data, "", Result, "problem")
    if problem is not None:
        c.typed_all(problem, "problem", Problem, ("name", "precision", "title"))
    _check_hardware(c, data)
    _check_agent(c, data)
    c.typed(data, "", Result, "status")
    _check_score(c, data, "", Result)
    systems = c.typed(data, "", Result, "systems")
    if systems is not None and not systems:
        c.bad("systems", "is empty")
    for i, system in enumerate(systems or []):
        _check_system(c, system, f"systems[{i}]", solution=(i == 0))
    return c.issues


def _check_hardware(c: Fields, data: dict) -> None:
    hardware = c.typed(data, "", Result, "hardware")
    if hardware is None:
        return
    c.typed_all(hardware, "hardware", Hardware, ("profile", "name"))
    peak = c.typed(hardware, "hardware", Hardware, "peak")
    if peak is None:
        return
    c.typed_all(peak, "hardware.peak", Peak, ("key", "label", "bandwidth_gbps"))
    tflops = c.typed(peak, "hardware.peak", Peak, "tflops")
    precision = data["problem"].get("precision") if isinstance(data.get("problem"), dict) else None
    if tflops is not None and isinstance(precision, str):  # the one peak the fractions divide by
        value = c.get(tflops, "hardware.peak.tflops", precision, NUMBER)
        if value is not None and not (math.isfinite(value) and value > 0):
            c.bad(f"hardware.peak.tflops.{precision}", f"is {value}, expected a finite number above 0")


def _check_agent(c: Fields, data: dict) -> None:
    if "agent" not in data:
        c.bad("agent", "is missing", "write \"agent\": null for a house kernel, or the agent's metadata")
        return
    agent = data["agent"]
    if agent is None:
        return
    fix = "give the agent JSON handed to the scorer (agent=FILE.json) a harness and a model"
    if not isinstance(agent, dict):
        c.bad("agent", f"is {type(agent).__name__}, expected an object or null", fix)
        return
    for key in ("harness", "model"):
        value = agent.get(key)
        if not isinstance(value, str) or not value.strip():
            c.bad(f"agent.{key}", "is missing or not a non-empty string", fix)
    for key in ("effort", "transcript", "run_dir"):
        if agent.get(key) is not None and not isinstance(agent[key], str):
            c.bad(f"agent.{key}", f"is {type(agent[key]).__name__}, expected a string", fix)
    for key in ("cost_usd", "wall_s"):  # shown on run and agent pages, and summed there
        value = agent.get(key)
        if value is not None and not (is_number(value) and math.isfinite(value) and value >= 0):
            c.bad(f"agent.{key}", f"is {type(value).__name__} {short(value)}, expected a finite number >= 0", fix)
    if any(agent.get(key) is not None for key in ("rescored_from", "source", "published")):
        _check_rescored(c, agent)


RESCORED_FIX = (
    "re-import the run with `python -m harnesses.import_kernelbench path=CLONE score=true` from a git clone "
    "of the source repository (it records the provenance and the published verdict), and rescore it"
)


def repository_path_ok(path: Any) -> bool:
    """A relative path inside a repository: no leading '/', no '.' or '..' part, only link-safe characters."""
    return (
        isinstance(path, str)
        and len(path) <= 400
        and REPOSITORY_PATH.fullmatch(path) is not None
        and not any(part in (".", "..") for part in path.split("/"))
    )


def _check_rescored(c: Fields, agent: dict) -> None:
    """A run re-scored from a published one (agent.rescored_from, .source, .published; docs/results.md): the
    site shows a link to the exact published file and their verdict beside ours, so every part is checked."""
    fix = RESCORED_FIX
    origin = agent.get("rescored_from")
    if not isinstance(origin, str) or not origin.strip() or len(origin) > 100:
        c.bad(
            "agent.rescored_from",
            f"is {type(origin).__name__} {short(origin)}, expected the name of the site the "
            "run was published on (a non-empty string), given with agent.source and agent.published",
            fix,
        )
    source = agent.get("source")
    if not isinstance(source, dict):
        c.bad(
            "agent.source",
            f"is {type(source).__name__} {short(source)}, expected an object (repository, commit, "
            "path of the published file)",
            fix,
        )
    else:
        checks = (
            ("repository", GITHUB_REPOSITORY.fullmatch, "a GitHub repository as github.com/OWNER/NAME"),
            ("commit", GIT_COMMIT.fullmatch, "the 40-hex-digit commit of the clone the file was read from"),
            ("path", repository_path_ok, "the file's path relative to the repository root, with no '..'"),
        )
        for key, ok, expected in checks:
            value = source.get(key)
            if not isinstance(value, str) or not ok(value):
                c.bad(f"agent.source.{key}", f"is {type(value).__name__} {short(value)}, expected {expected}", fix)
        if source.get("sha256") is not None and not (
            isinstance(source["sha256"], str) and SHA256_HEX.fullmatch(source["sha256"])
        ):
            c.bad("agent.source.sha256", f"is {short(source['sha256'])}, expected 64 lowercase hex digits", fix)
        for key in ("run_id", "problem", "deck", "license"):
            _optional_text(c, source, "agent.source", key, fix)
    published = agent.get("published")
    if not isinstance(published, dict):
        c.bad(
            "agent.published",
            f"is {type(published).__name__} {short(published)}, expected an object (their "
            "verdict: correct, peak_fraction, hardware, ...)",
            fix,
        )
        return
    fraction = published.get("peak_fraction")
    if fraction is not None and not (is_number(fraction) and math.isfinite(fraction) and 0 <= fraction <= 1):
        c.bad(
            "agent.published.peak_fraction",
            f"is {type(fraction).__name__} {short(fraction)}, expected null or "
            "a finite number in 0..1 (the fraction of peak they published)",
            fix,
        )
    if published.get("correct") is not None and not isinstance(published["correct"], bool):
        c.bad("agent.published.correct", f"is {short(published['correct'])}, expected true, false or null", fix)
    hardware = published.get("hardware")
    if not isinstance(hardware, str) or not hardware.strip() or len(hardware) > 100:
        c.bad(
            "agent.published.hardware",
            f"is {type(hardware).__name__} {short(hardware)}, expected the name of the "
            "GPU they measured on (their fraction is read against it)",
            fix,
        )
    for key in ("annotation_verdict", "board_label", "failure_reason"):
        _optional_text(c, published, "agent.published", key, fix)
    seconds = published.get("elapsed_seconds")
    if seconds is not None and not (is_number(seconds) and math.isfinite(seconds) and seconds >= 0):
        c.bad("agent.published.elapsed_seconds", f"is {short(seconds)}, expected null or a finite number >= 0", fix)
    if published.get("output_tokens") is not None and not is_count(published["output_tokens"]):
        c.bad(
            "agent.published.output_tokens",
            f"is {short(published['output_tokens'])}, expected null or a whole number",
            fix,
        )


def _optional_text(c: Fields, data: dict, where: str, key: str, fix: str) -> None:
    value = data.get(key)
    if value is not None and not (isinstance(value, str) and len(value) <= MAX_TEXT):
        c.bad(
            f"{where}.{key}",
            f"is {type(value).__name__} {short(value)}, expected null or a string of at most {MAX_TEXT} characters",
            fix,
        )


def _check_score(c: Fields, data: dict, where: str, model: type) -> None:
    score = c.typed(data, where, model, "score")
    if score is not None:
        at = f"{where}.score" if where else "score"
        c.typed_all(
            score,
            at,
            Score,
            (
                "fraction",
                "visible_fraction",
                "held_out_fraction",
                "generalisation_gap",
                "shapes_passed",
                "shapes_total",
            ),
        )


def _check_system(c: Fields, system: Any, where: str, solution: bool) -> None:
    if not isinstance(system, dict):
        c.bad(where, f"is {type(system).__name__}, expected an object")
        return
    role = c.typed(system, where, System, "role")
    if solution and role is not None and role != "solution":
        c.bad(f"{where}.role", f"is {role!r}; systems[0] must be the scored solution")
    c.typed_all(system, where, System, ("name", "label", "path", "sha256", "wall_s", "status"))
    _check_score(c, system, where, System)
    for j, audit in enumerate(c.typed(system, where, System, "audits") or []):
        if not isinstance(audit, dict):
            c.bad(f"{where}.audits[{j}]", f"is {type(audit).__name__}, expected an object")
        else:
            c.typed(audit, f"{where}.audits[{j}]", Audit, "outcome")  # the system's status depends on it
    failure = c.typed(system, where, System, "failure")  # shown on the board beside the status
    if failure is not None:
        c.typed_all(failure, f"{where}.failure", Failure, ("class", "unseen_only", "label", "detail"))
        for k, name in enumerate(c.typed(failure, f"{where}.failure", Failure, "shapes") or []):
            if not isinstance(name, str):
                c.bad(f"{where}.failure.shapes[{k}]", f"is {type(name).__name__} {short(name)}, expected a shape name")
    for j, shape in enumerate(c.typed(system, where, System, "shapes") or []):
        _check_shape(c, shape, f"{where}.shapes[{j}]")


_SHAPE_NUMBERS = ("fraction", "achieved_tflops", "achieved_gbps", "roofline_ms")
_TIMING_NUMBERS = ("median_ms", "p10_ms", "p90_ms")
# A timed shape's GPU state (scoring/gpu_state.py): each quantity's min, median and max; the run page shows
# the SM clock's and the temperature's, and the reasons NVML gave for a clock below its maximum.
_GPU_STATE_SPREADS = ("sm_clock_mhz", "mem_clock_mhz", "temperature_c", "memory_temperature_c", "power_w")
_SPREAD_KEYS = ("min", "median", "max")


def _check_shape(c: Fields, shape: Any, at: str) -> None:
    if not isinstance(shape, dict):
        c.bad(at, f"is {type(shape).__name__}, expected an object")
        return
    # The roofline numbers are absent on an untimed shape; when present, numbers (the score reads them).
    c.typed_all(
        shape,
        at,
        Shape,
        ("name", "status", "shape_set", "params", "flops", "bytes_moved", *_SHAPE_NUMBERS, "bound", "check"),
    )
    _check_gpu_state(c, shape, at)
    timing = c.typed(shape, at, Shape, "timing")
    if timing is not None:
        c.typed_all(timing, f"{at}.timing", Timing, (*_TIMING_NUMBERS, "rse", "count"))


def _check_gpu_state(c: Fields, shape: dict, at: str) -> None:
    state = c.typed(shape, at, Shape, "gpu_state")
    if state is None:
        return
    where = f"{at}.gpu_state"
    c.typed(state, where, GpuState, "why_not")
    for key in _GPU_STATE_SPREADS:
        spread = c.typed(state, where, GpuState, key)
        if spread is not None:
            c.typed_all(spread, f"{where}.{key}", Spread, _SPREAD_KEYS)
    for j, reason in enumerate(c.typed(state, where, GpuState, "clock_event_reasons") or []):
        if not isinstance(reason, str):
            c.bad(f"{where}.clock_event_reasons[{j}]", f"is {short(reason)}, expected a reason's name (text)")
