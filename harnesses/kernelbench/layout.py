"""One re-scored run's solution folder: the agent's file unchanged, our adapter beside it, the metadata.

    <folder>/agent_solution.py   the agent's published file, byte for byte
    <folder>/solution.py         harnesses/kernelbench/adapters/<problem>.py: a Ceiling solution that
                                 imports agent_solution (the scorer puts the solution's folder first on
                                 sys.path) and maps our interface onto theirs
    <folder>/agent.json          harness, model, effort, date, provenance, their published verdict

`python -m scoring.run problem=P solution=<folder>/solution.py agent=<folder>/agent.json` scores it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ADAPTERS = Path(__file__).resolve().parent / "adapters"
AGENT_MODULE = "agent_solution"  # the name adapters import the agent's file under


def adapter_path(problem: str) -> Path:
    """Our adapter for a Ceiling problem (may not exist: the problem is then not adaptable)."""
    return ADAPTERS / f"{problem}.py"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_solution_folder(folder: Path, problem: str, agent_source: bytes, metadata: dict) -> Path:
    """Write (or rewrite) one run's folder; returns the path of its solution.py."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{AGENT_MODULE}.py").write_bytes(agent_source)
    solution = folder / "solution.py"
    solution.write_bytes(adapter_path(problem).read_bytes())
    (folder / "agent.json").write_text(json.dumps(metadata, indent=1, sort_keys=True) + "\n")
    return solution
