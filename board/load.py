"""Find, read and validate the result files a site is built from.

Layout read: `<results>/<hardware>/<run_id>.json` (the scorer's output) and, for agent runs,
`<results>/<hardware>/runs/<run_id>/` (transcript or native/, solution.py, result.json, logs/); a run
directory's result.json counts only when no top-level file has its run id. Annotations come from
`<results>/annotations/`. Bad files become `Issue`s and are skipped (a result file that fails the
checks of scoring/result_checks.py is never shown, only counted); CPU-profile results (smoke tests:
their fractions are not scores) are counted and left out unless asked for.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from .annotations import Annotation, load_annotations
from .issues import Issue
from .validate import check_result


@dataclass(frozen=True)
class Run:
    path: Path
    data: dict = field(repr=False)
    digest: str  # sha256 of the file's bytes (incremental rebuilds key on it)
    run_dir: Path | None
    annotation: Annotation | None

    @property
    def run_id(self) -> str:
        return self.data["run_id"]

    @property
    def hardware(self) -> str:
        return self.data["hardware"]["peak"]["key"]

    @property
    def problem(self) -> str:
        return self.data["problem"]["name"]


@dataclass(frozen=True)
class Loaded:
    runs: tuple[Run, ...]
    issues: tuple[Issue, ...]
    cpu_skipped: int
    annotations: dict
    invalid_results: int  # result files skipped because a check failed


def result_files(results: Path) -> list[Path]:
    top = sorted(p for p in results.glob("*/*.json") if not p.name.startswith("."))
    nested = sorted(results.glob("*/runs/*/result.json"))
    return [p for p in top if p.parent.name != "annotations"] + nested


def read_result(
    path: Path, results: Path, known_problems: set[str], annotations: dict, include_cpu: bool
) -> tuple[Run | None, list[Issue], bool]:
    """One file -> (run, issues, is_cpu). A bad file gives issues and no run; a CPU result no run."""
    try:
        raw = path.read_bytes()
        data = json.loads(raw)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return (
            None,
            [
                Issue(
                    str(path),
                    "(file)",
                    f"is not readable JSON: {error}",
                    "remove the file or rewrite it with the scorer",
                )
            ],
            False,
        )
    except RecursionError:
        return None, [Issue(str(path), "(file)", "is nested too deeply to read", "remove the file")], False
    problems = check_result(data, str(path), known_problems)
    if problems:
        return None, problems, False
    if data["hardware"]["profile"] == "cpu" and not include_cpu:
        return None, [], True
    return (
        Run(
            path, data, hashlib.sha256(raw).hexdigest(), _run_dir(results, path, data), annotations.get(data["run_id"])
        ),
        [],
        False,
    )


def add_run(runs: dict[str, Run], run: Run, issues: list[Issue]) -> bool:
    """Keep the first file of each run id (top-level files come first); report a second top-level one."""
    if run.run_id in runs:
        if run.path.name != "result.json":  # a run directory's result.json is a copy of a top-level result
            issues.append(
                Issue(
                    str(run.path),
                    "run_id",
                    f"'{run.run_id}' is also used by {runs[run.run_id].path}",
                    "keep one file per run (results are written once, never copied)",
                )
            )
        return False
    runs[run.run_id] = run
    return True


def orphan_annotations(annotations: dict, runs: dict) -> list[Issue]:
    return [
        Issue(
            a.file,
            "run_id",
            f"'{run_id}' names no loaded result",
            "fix the run id, or remove the verdict of a run that is gone",
        )
        for run_id, a in annotations.items()
        if run_id not in runs
    ]


def load_runs(results: Path, known_problems: set[str], include_cpu: bool = False) -> Loaded:
    """Serial loading (the build itself reads files in worker processes through `read_result`)."""
    annotations, issues = load_annotations(results / "annotations")
    runs: dict[str, Run] = {}
    cpu_skipped = invalid = 0
    for path in result_files(results):
        run, problems, is_cpu = read_result(path, results, known_problems, annotations, include_cpu)
        issues += problems
        cpu_skipped += is_cpu
        invalid += bool(problems)
        if run is not None:
            add_run(runs, run, issues)
    issues += orphan_annotations(annotations, runs)
    return Loaded(tuple(runs.values()), tuple(issues), cpu_skipped, annotations, invalid)


def _finite(value):
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _json_safe(value):
    """A free-form part of a result (agent metadata, the peak row, a shape's params) with NaN and inf
    as None at any depth: the downloads are strict JSON, and the checks do not vet every such number."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return _finite(value)


def shown_fraction(shape: dict):
    """A shape's fraction as the site shows it: none for a `rejected` shape, whose recorded fraction is
    above 1.0 (physically impossible: why it was rejected; its detail says so)."""
    return None if shape.get("status") == "rejected" else _finite(shape.get("fraction"))


def slim(data: dict) -> dict:
    """What a worker sends back to the main process: the fields the aggregate pages read, NaN as None.
    It is also one entry of downloads/results.json (docs/site.md lists the fields)."""
    systems = []
    for system in data["systems"]:
        shapes = []
        for shape in system["shapes"]:
            entry = {k: _finite(shape.get(k)) for k in _SLIM_SHAPE}
            entry["fraction"], entry["params"] = shown_fraction(shape), _json_safe(shape.get("params"))
            timing = shape.get("timing") or {}
            entry.update((k, _finite(timing.get(k))) for k in _SLIM_TIMING)
            shapes.append(entry)
        entry = {k: system.get(k) for k in _SLIM_SYSTEM}
        if "failure" in system:  # older results lack it: unknown, not "passed", so it stays absent
            entry["failure"] = _json_safe(system["failure"])
        entry["score"] = {k: _finite(v) for k, v in system["score"].items()}
        entry["wall_s"] = _finite(entry["wall_s"])
        entry["shapes"] = shapes
        systems.append(entry)
    score = data.get("score")
    ceiling = data.get("ceiling") if isinstance(data.get("ceiling"), dict) else {}
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    return {
        "run_id": data["run_id"],
        "created_utc": data["created_utc"],
        "agent": _json_safe(data.get("agent")),
        # what the ranking rules read (ranking_rules.py): the scorer's commit and tree, audits, shape sets
        "ceiling": {k: _json_safe(ceiling.get(k)) for k in ("version", "commit", "dirty")},
        "config": {k: _json_safe(config.get(k)) for k in ("audits", "shapes")},
        "status": data.get("status"),
        "score": {k: _finite(v) for k, v in score.items()} if isinstance(score, dict) else None,
        "problem": {
            "name": data["problem"]["name"],
            "precision": data["problem"].get("precision"),
            "title": data["problem"].get("title"),
        },
        "hardware": {"profile": data["hardware"]["profile"], "peak": _json_safe(data["hardware"]["peak"])},
        "systems": systems,
    }


_SLIM_SHAPE = (
    "name",
    "shape_set",
    "params",
    "status",
    "achieved_tflops",
    "achieved_gbps",
    "fraction",
    "flops",
    "bytes_moved",
)
_SLIM_TIMING = ("median_ms", "p10_ms", "p90_ms")
_SLIM_SYSTEM = ("role", "name", "label", "status", "score", "wall_s", "path", "sha256")


def _run_dir(results: Path, path: Path, data: dict) -> Path | None:
    """The run's artifact folder: the agent's `run_dir`, else `<hardware folder>/runs/<run_id>/`."""
    if path.name == "result.json" and path.parent.parent.name == "runs":
        return path.parent
    agent = data.get("agent") or {}
    candidates = []
    if isinstance(agent.get("run_dir"), str) and agent["run_dir"]:
        # Relative to the result's own folder (the harness writes `runs/<id>` beside the result), the results
        # root or the repository.
        candidates += [path.parent / agent["run_dir"], results / agent["run_dir"], results.parent / agent["run_dir"]]
    candidates.append(path.parent / "runs" / data["run_id"])
    return next((c for c in candidates if c.is_dir()), None)
