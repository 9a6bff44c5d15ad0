"""What the methodology page says, read from the code that does it so the page cannot drift.

Torch-free: the scorer's configuration, roofline and score functions are imported from torch-free
modules (scoring.config, scoring.roofline, scoring.result, scoring.spec); the timing, checking and
audit modules import torch, so their docstrings and the timing policy's defaults are read from
their source with `ast`, never imported.
"""

from __future__ import annotations

import ast
import inspect
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

import scoring
from scoring import config as scoring_config
from scoring import result as scoring_result
from scoring import roofline as scoring_roofline
from scoring import spec as scoring_spec

SCORING_DIR = Path(scoring.__file__).resolve().parent


@dataclass(frozen=True)
class Option:
    name: str
    default: str
    help: str


@dataclass(frozen=True)
class Facts:
    config_options: tuple[Option, ...]
    timing_doc: str
    timing_policy: tuple[Option, ...]
    checking_doc: str
    audit_doc: str
    audit_kinds: tuple[Option, ...]
    worker_doc: str
    roofline_doc: str
    score_doc: str
    max_plausible_fraction: float
    status_severity: tuple[str, ...]
    seeds_doc: str
    peaks: tuple[dict, ...]


def module_docstring(path: Path) -> str:
    try:
        return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (OSError, SyntaxError):
        return f"({path.name} could not be read)"


def dataclass_defaults(path: Path, class_name: str) -> tuple[Option, ...]:
    """`name: type = default  # comment` lines of a dataclass, read from source without importing it."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            out = []
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                    line = lines[item.lineno - 1]
                    comment = line.split("#", 1)[1].strip() if "#" in line else ""
                    out.append(Option(item.target.id, ast.unparse(item.value), comment))
            return tuple(out)
    return ()


def collect_facts() -> Facts:
    options = tuple(
        Option(f.name, "-" if f.default in ("", None) else str(f.default), f.metadata["help"])
        for f in fields(scoring_config.RunConfig)
    )
    audit_kinds = tuple(Option(k, "", v) for k, v in getattr(scoring_spec, "_AUDIT_KINDS", {}).items())
    peaks_path = SCORING_DIR / "peaks.toml"
    peaks = tomllib.loads(peaks_path.read_text()).get("gpu", {}) if peaks_path.is_file() else {}
    return Facts(
        config_options=options,
        timing_doc=module_docstring(SCORING_DIR / "timing.py"),
        timing_policy=dataclass_defaults(SCORING_DIR / "timing.py", "TimingPolicy"),
        checking_doc=module_docstring(SCORING_DIR / "checking.py"),
        audit_doc=module_docstring(SCORING_DIR / "audit.py"),
        audit_kinds=audit_kinds,
        worker_doc="\n\n".join(module_docstring(SCORING_DIR / side / "__init__.py") for side in ("judge", "worker")),
        roofline_doc=inspect.getdoc(scoring_roofline) or "",
        score_doc=inspect.getdoc(scoring_result.geomean_score) or "",
        max_plausible_fraction=scoring_roofline.MAX_PLAUSIBLE_FRACTION,
        status_severity=tuple(scoring_result.STATUS_SEVERITY),
        seeds_doc=module_docstring(SCORING_DIR / "seeds.py"),
        peaks=tuple(dict(row, key=key) for key, row in peaks.items()),
    )
