"""Which re-scored results judge other code than kernelbench.com timed (a CUTLASS path not built), and
where a published file looks for CUTLASS.

not_their_code.toml lists the committed runs whose file looked for CUTLASS only at a folder the scorer did
not offer; `not_their_code` reads a result against it. `cutlass_folders_in` finds, in a file's text, the
folders beside it that it looks in, so that the importer can offer each one (CUTLASS_FOLDERS).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

NOT_THEIR_CODE_FILE = Path(__file__).resolve().parent / "not_their_code.toml"
# Folders beside the file (its run folder) where published files look for a CUTLASS tree.
CUTLASS_FOLDERS = ("cutlass", "cutlass_src", "cutlass_3.9", "third_party/cutlass")
# A path built from the file's own folder: os.path.join(_HERE, "third_party", "cutlass"), here / "cutlass_src".
_JOIN = re.compile(
    r"""(?:_HERE|here|dirname\((?:[^()]|\([^()]*\))*\))\s*\)?\s*(?:,|/)\s*"""
    r"""((?:["'][\w.]+["']\s*(?:,|/)\s*)*["'][\w.]*cutlass[\w.]*["'])"""
)
_FILE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".so", ".py")


def cutlass_folders_in(source: str) -> list[str]:
    """The folders relative to a file that its text looks in for CUTLASS ("./cutlass_3.9"), in order."""
    found = []
    for match in _JOIN.finditer(source):
        parts = re.findall(r"""["']([\w.]+)["']""", match.group(1))
        folder = "./" + "/".join(parts)
        if folder.endswith(_FILE_SUFFIXES):
            continue  # a source file of its own named after CUTLASS, not a tree
        if folder not in found:
            found.append(folder)
    return found


def load(path: Path = NOT_THEIR_CODE_FILE) -> dict[str, dict]:
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc}); fix the line it names") from None
    for run_id, entry in data.items():
        for key in ("looks_in", "effect", "where", "evidence"):
            if not isinstance(entry, dict) or not isinstance(entry.get(key), str):
                raise ValueError(
                    f"{path}: [{run_id}] field '{key}' is missing or not a string; add it (see the header of the file)"
                )
    return data


def not_their_code(data: dict, listed: dict[str, dict] | None = None) -> str:
    """Why a re-scored result does not judge the published code (its `effect` and where it looks), or ""
    when it does: not listed, or scored with the folder offered (agent.environment.cutlass names it)."""
    agent = data.get("agent") or {}
    run_id = (agent.get("source") or {}).get("run_id", "")
    entry = (load() if listed is None else listed).get(run_id)
    if not entry:
        return ""
    offered = str((agent.get("environment") or {}).get("cutlass", ""))
    if entry["looks_in"] in offered:
        return ""
    return f"{entry['effect']} (it looks for CUTLASS at {entry['looks_in']}, which this run did not offer)"
