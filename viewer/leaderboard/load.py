"""Find, read and validate the result files a site is built from.

Layout read: `<results>/<hardware>/<run_id>.json` (the scorer's output) and, for agent runs,
`<results>/<hardware>/runs/<run_id>/` (transcript or native/, solution.py, result.json, logs/); a run
directory's result.json counts only when no top-level file has its run id. Annotations come from
`<results>/annotations/`. Bad files become `Issue`s and are skipped; CPU-profile results (smoke
tests: their fractions are not scores) are counted and left out unless asked for.
"""

from __future__ import annotations

import hashlib
import json
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


def result_files(results: Path) -> list[Path]:
    top = sorted(p for p in results.glob("*/*.json") if not p.name.startswith("."))
    nested = sorted(results.glob("*/runs/*/result.json"))
    return [p for p in top if p.parent.name != "annotations"] + nested


def load_runs(results: Path, known_problems: set[str], include_cpu: bool = False) -> Loaded:
    annotations, issues = load_annotations(results / "annotations")
    runs: dict[str, Run] = {}
    cpu_skipped = 0
    for path in result_files(results):
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            issues.append(Issue(str(path), "(file)", f"is not readable JSON: {error}",
                                "remove the file or rewrite it with the scorer"))
            continue
        problems = check_result(data, str(path), known_problems)
        if problems:
            issues += problems
            continue
        run_id = data["run_id"]
        if run_id in runs:
            if path.name == "result.json":  # a run directory's copy of a top-level result
                continue
            issues.append(Issue(str(path), "run_id", f"'{run_id}' is also used by {runs[run_id].path}",
                                "keep one file per run (results are written once, never copied)"))
            continue
        if data["hardware"]["profile"] == "cpu" and not include_cpu:
            cpu_skipped += 1
            continue
        runs[run_id] = Run(path, data, hashlib.sha256(raw).hexdigest(), _run_dir(results, path, data),
                           annotations.get(run_id))
    for run_id, annotation in annotations.items():
        if run_id not in runs:
            issues.append(Issue(annotation.file, "run_id", f"'{run_id}' names no loaded result",
                                "fix the run id, or remove the verdict of a run that is gone"))
    return Loaded(tuple(runs.values()), tuple(issues), cpu_skipped, annotations)


def _run_dir(results: Path, path: Path, data: dict) -> Path | None:
    """The run's artifact folder: the agent's `run_dir`, else `<hardware folder>/runs/<run_id>/`."""
    if path.name == "result.json" and path.parent.parent.name == "runs":
        return path.parent
    agent = data.get("agent") or {}
    candidates = []
    if agent.get("run_dir"):
        candidates += [results.parent / agent["run_dir"], results / agent["run_dir"]]
    candidates.append(path.parent / "runs" / data["run_id"])
    return next((c for c in candidates if c.is_dir()), None)
