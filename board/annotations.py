"""Verdict files: a reviewer's judgement of one run, kept in `results/annotations/<run_id>.toml`.

    run_id = "20261122T034242Z-fp8_gemm-house-a7e607"   # must equal the file name without .toml
    verdict = "clean"          # clean | interesting | rubric_leak | reward_hack | bug
    summary = "One paragraph: what the reviewer found."
    reviewer = "who judged"    # optional
    date = 2026-11-22          # optional (TOML date)
    [[quotes]]                 # optional, any number: the lines the verdict rests on
    source = "solution.py"     # a file of the run, "transcript", or "result"
    lines = "40-52"            # optional
    text = '''...'''

Runs whose verdict is rubric_leak, reward_hack or bug stay visible (with a badge) but are kept off
the ranking. docs/site.md documents the format; errors name the file, the field and the fix.
"""

from __future__ import annotations

import datetime
import tomllib
from dataclasses import dataclass
from pathlib import Path

from scoring.spec import suggest

from .issues import Issue

VERDICTS = {
    "clean": "reviewed: nothing wrong found",
    "interesting": "reviewed: worth reading (technique, failure mode), nothing wrong",
    "rubric_leak": "the agent saw grading material it should not have (held-out shapes, the checker's code)",
    "reward_hack": "the solution games the scorer instead of solving the problem",
    "bug": "a bug in Ceiling (scorer, harness) makes this run's score wrong",
}
OFF_RANKING = frozenset({"rubric_leak", "reward_hack", "bug"})
_KEYS = {"run_id", "verdict", "summary", "reviewer", "date", "quotes"}
_QUOTE_KEYS = {"source", "lines", "text"}


@dataclass(frozen=True)
class Quote:
    source: str
    lines: str
    text: str


@dataclass(frozen=True)
class Annotation:
    run_id: str
    verdict: str
    summary: str
    reviewer: str
    date: str
    quotes: tuple[Quote, ...]
    file: str

    @property
    def off_ranking(self) -> bool:
        return self.verdict in OFF_RANKING


def load_annotations(folder: Path) -> tuple[dict[str, Annotation], list[Issue]]:
    """Every `<folder>/*.toml`, keyed by run id; bad files become issues and are skipped."""
    found: dict[str, Annotation] = {}
    issues: list[Issue] = []
    if not folder.is_dir():
        return found, issues
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.name == "README.md":
            continue
        if path.suffix != ".toml":
            issues.append(
                Issue(str(path), "(file)", "is not a .toml verdict file", "rename it <run_id>.toml or move it out")
            )
            continue
        annotation, problems = parse_annotation(path)
        issues += problems
        if annotation is not None:
            found[annotation.run_id] = annotation
    return found, issues


def parse_annotation(path: Path) -> tuple[Annotation | None, list[Issue]]:
    file = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        return None, [Issue(file, "(syntax)", f"is not valid TOML: {error}", "fix the TOML at the position given")]
    except OSError as error:
        return None, [Issue(file, "(file)", f"cannot be read: {error}", "check the file's permissions")]
    issues = [
        Issue(file, key, "unknown key" + suggest(key, _KEYS), f"use only {sorted(_KEYS)}")
        for key in data
        if key not in _KEYS
    ]

    def text(key: str, required: bool) -> str:
        value = data.get(key, "")
        if not isinstance(value, str) or (required and not value.strip()):
            issues.append(Issue(file, key, "is missing or not a non-empty string", f'write {key} = "..."'))
            return ""
        return value.strip()

    run_id = text("run_id", True)
    if run_id and run_id != path.stem:
        issues.append(
            Issue(
                file,
                "run_id",
                f"'{run_id}' differs from the file name '{path.stem}'",
                f"rename the file {run_id}.toml (one verdict file per run)",
            )
        )
    verdict = data.get("verdict")
    if verdict not in VERDICTS:
        issues.append(
            Issue(
                file,
                "verdict",
                f"{verdict!r} is not a verdict" + suggest(str(verdict), VERDICTS),
                f"use one of {', '.join(VERDICTS)}",
            )
        )
    summary = text("summary", True)
    reviewer = text("reviewer", False)
    date = data.get("date", "")
    if not isinstance(date, (str, datetime.date)):
        issues.append(Issue(file, "date", f"{date!r} is not a date", "write date = 2026-11-22"))
        date = ""
    quotes = []
    raw_quotes = data.get("quotes", [])
    if not isinstance(raw_quotes, list):
        issues.append(Issue(file, "quotes", "is not a list of tables", "write [[quotes]] tables"))
        raw_quotes = []
    for i, quote in enumerate(raw_quotes):
        where = f"quotes[{i}]"
        if not isinstance(quote, dict):
            issues.append(Issue(file, where, "is not a table", "write [[quotes]] with source and text"))
            continue
        for key in quote:
            if key not in _QUOTE_KEYS:
                issues.append(
                    Issue(
                        file,
                        f"{where}.{key}",
                        "unknown key" + suggest(key, _QUOTE_KEYS),
                        f"use only {sorted(_QUOTE_KEYS)}",
                    )
                )
        values = {k: quote.get(k, "") for k in _QUOTE_KEYS}
        if isinstance(values["lines"], int):
            values["lines"] = str(values["lines"])
        for key in _QUOTE_KEYS:
            if not isinstance(values[key], str) or (key != "lines" and not values[key].strip()):
                issues.append(Issue(file, f"{where}.{key}", "is missing or not a string", f'write {key} = "..."'))
                values[key] = ""
        quotes.append(Quote(values["source"], values["lines"], values["text"]))
    if issues:
        return None, issues
    return Annotation(run_id, verdict, summary, reviewer, str(date), tuple(quotes), file), []
