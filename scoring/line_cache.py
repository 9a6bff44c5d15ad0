"""Reference lines measured once and reused: a line depends only on the problem, its baseline file, the
GPU, the software versions and the timing policy, not on the solution scored beside it.

The cache is the results folder itself. Every freshly measured line carries `line_key` (what it depends
on) and `line_key_sha256`; a later run whose line has the same key copies that system from the newest
result holding it, adds `cached_from` (the result file, relative to the results root) and does not
measure it again. Nothing is hidden: the file a cached line came from is an ordinary result the site
and `scoring.verify` read. `fresh_lines=true` measures again (and the new measurement is then the newest).

Lines are measured on the fixed shapes only (visible and held-out): property shapes are drawn afresh for
every run and test a solution's generality, not a reference's speed, so a line's measurement is the same
whichever run makes it. Only a line that passed is reused; a failure may be transient.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

LINE_SHAPE_SETS = ("visible", "held_out")
CHECK_KEYS = ("check_seeds", "watch")
HARDWARE_KEYS = ("profile", "name", "sm_count", "driver", "cuda", "torch", "triton")


def line_key(problem, role: str, file_sha256: str | None, hardware, config, shape_names: list[str], policy) -> dict:
    """What a reference line's measurement depends on (`hardware`: scoring.hardware.Hardware; `policy`: the
    line's scoring.timing.TimingPolicy, its own stop rule). The peaks are the ones its fractions were computed
    with; the CPU profile measures its own each run unless both are given, so there a line is reused only
    under given peaks."""
    facts = hardware.as_dict()
    return {
        "problem": problem.name,
        "content_sha256": problem.spec.content_sha256,
        "line": role,
        "file_sha256": file_sha256,
        "hardware": {key: facts.get(key) for key in HARDWARE_KEYS},
        "peak": {
            "tflops": hardware.peak.tflops_for(problem.spec.precision),
            "bandwidth_gbps": hardware.peak.bandwidth_gbps,
        },
        "timing": {**{key: getattr(config, key) for key in CHECK_KEYS}, **dataclasses.asdict(policy)},
        "shapes": sorted(shape_names),
    }


def key_digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def find_cached_line(hardware_dir: Path, digest: str) -> tuple[Path, dict] | None:
    """The newest result under `hardware_dir` (a results folder's <hardware>/) holding a measured line with
    this key, and that line's system; None when there is none."""
    for path in sorted(hardware_dir.glob("*.json"), reverse=True):  # run ids start with the UTC time
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        for system in (data.get("systems") or [])[1:] if isinstance(data, dict) else []:
            if (
                isinstance(system, dict)
                and system.get("line_key_sha256") == digest
                and not system.get("cached_from")
                and system.get("status") == "passed"
            ):
                return path, system
    return None


def reuse(system: dict, source: Path, results_root: Path) -> dict:
    """A cached line as it goes into the new result: the measured system, saying where it came from."""
    return {**system, "cached_from": source.resolve().relative_to(results_root.resolve()).as_posix()}
