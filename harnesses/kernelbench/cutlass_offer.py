"""CUTLASS offered to the agents' builds where their files look for it, and recorded in agent.json."""

from __future__ import annotations

import re
from pathlib import Path

from harnesses.kernelbench.fallbacks import CUTLASS_FOLDERS, cutlass_folders_in
from harnesses.kernelbench.layout import AGENT_MODULE
from scoring.options import OptionError


def cutlass_version(root: Path) -> str:
    """CUTLASS's version from include/cutlass/version.h, e.g. "4.2.0"."""
    text = (root / "include" / "cutlass" / "version.h").read_text(errors="replace")
    parts = [re.search(rf"#define CUTLASS_{part}\s+(\d+)", text) for part in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else "unknown"


def offer_cutlass(root: Path, folder: Path, env: dict) -> dict:
    """Put CUTLASS where the agents' files look for it: the folders beside the file that published files
    look in (CUTLASS_FOLDERS: ./cutlass, ./cutlass_src, ./cutlass_3.9, ./third_party/cutlass; their agents
    cloned or vendored it there), /tmp/cutlass and the CUTLASS_* variables. A file that finds none falls
    back or fails to build, and its result would judge other code than kernelbench.com timed. Returns the
    environment record for agent.json: what was offered, and where this file looks."""
    if not (root / "include" / "cutlass" / "cutlass.h").is_file():
        raise OptionError(f"cutlass={root}: no include/cutlass/cutlass.h there; give a CUTLASS source tree")
    root = root.resolve()
    for name in ("CUTLASS_DIR", "CUTLASS_ROOT", "CUTLASS_PATH", "CUTLASS_HOME"):
        env[name] = str(root)
    env["CUTLASS_INCLUDE"] = str(root / "include")
    for link in (*(folder / relative for relative in CUTLASS_FOLDERS), Path("/tmp/cutlass")):
        if not link.exists() and not link.is_symlink():
            try:
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(root, target_is_directory=True)
            except OSError:
                pass  # a location we may not write: the variables remain
    offered = ", ".join(f"./{relative}" for relative in CUTLASS_FOLDERS)
    record = {
        "cutlass": f"CUTLASS {cutlass_version(root)} source tree, offered at {offered}, /tmp/cutlass and "
        "CUTLASS_DIR/ROOT/PATH/HOME/INCLUDE"
    }
    agent_file = folder / f"{AGENT_MODULE}.py"
    looks_in = cutlass_folders_in(agent_file.read_text(errors="replace")) if agent_file.is_file() else []
    if looks_in:
        record["cutlass_looked_for"] = looks_in
    return record
