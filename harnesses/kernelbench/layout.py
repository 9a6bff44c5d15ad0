"""One re-scored run's solution folder: the agent's file unchanged, our adapter beside it, the metadata.

    <folder>/agent_solution.py   the agent's published file, byte for byte (up to a sidecar banner)
    <folder>/solution.py         harnesses/kernelbench/adapters/<problem>.py: a Ceiling solution that
                                 imports agent_solution (the scorer puts the solution's folder first on
                                 sys.path) and maps our interface onto theirs
    <folder>/kernelbench_their_model.py   what every adapter shares (building their Model, their build)
    <folder>/agent.json          harness, model, effort, date, provenance, their published verdict
    <folder>/<sidecar>           a file their export appended to the solution (below), split back out

Their export appends the files a solution loads (a .cu beside solution.py) to the published text after
a banner `# ===== sidecar: NAME (N bytes, loaded by solution.py) =====`, which leaves a file that is not
Python. The folder gets the two files the agent wrote: the text before the banner as agent_solution.py,
each sidecar under its own name (a plain file name only); agent.json records the split.

`python -m scoring.run problem=P solution=<folder>/solution.py agent=<folder>/agent.json` scores it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ADAPTERS = Path(__file__).resolve().parent / "adapters"
AGENT_MODULE = "agent_solution"  # the name adapters import the agent's file under
SHARED_MODULE = ADAPTERS / "kernelbench_their_model.py"  # what every adapter imports, copied beside it
_SIDECAR = re.compile(
    rb"\n# =+\n# ===== sidecar: ([A-Za-z0-9_.-]+) \((\d+) bytes, loaded by solution\.py\) =====\n# =+\n"
)


def adapter_path(problem: str) -> Path:
    """Our adapter for a Ceiling problem (may not exist: the problem is then not adaptable)."""
    return ADAPTERS / f"{problem}.py"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def split_sidecars(published: bytes) -> tuple[bytes, dict[str, bytes], list[dict]]:
    """(the solution's own text, {sidecar name: content}, a record of each split) of a published export."""
    found = list(_SIDECAR.finditer(published))
    if not found:
        return published, {}, []
    solution = published[: found[0].start()] + b"\n"
    sidecars, record = {}, []
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(published)
        content = published[match.end() : end]
        content = content[1:] if content.startswith(b"\n") else content  # the banner's blank line
        name, declared = match.group(1).decode(), int(match.group(2))
        if name in ("", ".", "..", f"{AGENT_MODULE}.py", "solution.py", "agent.json", SHARED_MODULE.name):
            continue  # a name that would overwrite the folder's own files is not written
        sidecars[name] = content
        record.append({"name": name, "bytes": len(content), "declared_size": declared, "sha256": sha256_hex(content)})
    return solution, sidecars, record


def write_solution_folder(folder: Path, problem: str, agent_source: bytes, metadata: dict) -> Path:
    """Write (or rewrite) one run's folder; returns the path of its solution.py."""
    folder.mkdir(parents=True, exist_ok=True)
    solution_text, sidecars, split = split_sidecars(agent_source)
    (folder / f"{AGENT_MODULE}.py").write_bytes(solution_text)
    for name, content in sidecars.items():
        (folder / name).write_bytes(content)
    if split:
        metadata = {**metadata, "sidecars_split_out": split}
    solution = folder / "solution.py"
    solution.write_bytes(adapter_path(problem).read_bytes())
    (folder / SHARED_MODULE.name).write_bytes(SHARED_MODULE.read_bytes())
    (folder / "agent.json").write_text(json.dumps(metadata, indent=1, sort_keys=True) + "\n")
    return solution
