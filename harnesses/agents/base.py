"""What an adapter is: one frozen value per agent CLI, made of plain data and small functions.

An adapter knows the CLI's executable names, how to build its command for a model and an effort level,
which environment variables it needs (the harness passes no others), where its native transcript lands
under the sandbox's fresh HOME, and how to tell a complete run from a cut-off one (beyond the viewer's
own reading of the transcript).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

EFFORTS = ("default", "low", "medium", "high", "xhigh")


class AdapterError(ValueError):
    pass


@dataclass(frozen=True)
class Invocation:
    """Everything the run loop needs to start the CLI once."""

    argv: tuple[str, ...]
    env: dict = field(default_factory=dict)  # adapter-specific settings (not secrets), e.g. CODEX_HOME
    effort_applied: bool = True  # False when the CLI has no effort control and the value is only recorded


@dataclass(frozen=True)
class Adapter:
    name: str  # the harness name used in sweeps and results (claude, codex, ...)
    executables: tuple[str, ...]  # names searched on PATH, first found wins
    env_names: tuple[str, ...]  # variables passed through from the user's environment when set (API keys...)
    transcript_format: str  # the viewer format of the kept transcript
    build: Callable[[str, str, str, str, Path], Invocation]  # (exe, model, effort, prompt, home) -> Invocation
    native_files: Callable[[Path, Path], list[Path]]  # (home, stdout file) -> native session files
    transcript_from_native: bool = False  # the native file, not stdout, is the transcript (Codex rollouts)
    sidecar: Callable[[Path, Path], Path | None] | None = None  # (home, stdout) -> file kept beside it
    complete_marker: Callable[[list[dict]], str] | None = None  # stdout records -> "" or why incomplete

    def find_executable(self, cli_dir: str = "", path_env: str | None = None) -> Path:
        """The CLI: from `cli_dir` when given (fakes, pinned installs), else the first name on PATH."""
        search = cli_dir or (path_env if path_env is not None else os.environ.get("PATH", ""))
        for name in self.executables:
            found = shutil.which(name, path=search)
            if found:
                return Path(found)
        where = f"cli_dir={cli_dir}" if cli_dir else "PATH"
        raise AdapterError(
            f"harness {self.name}: none of {', '.join(self.executables)} found on {where}; "
            f"install the CLI or pass cli_dir=FOLDER holding it"
        )


def effort_value(effort: str, adapter: str) -> str:
    if effort not in EFFORTS:
        raise AdapterError(f"effort={effort!r} for harness {adapter}: choose one of {', '.join(EFFORTS)}")
    return effort


def read_records(path: Path) -> list[dict]:
    """The JSON objects of a JSONL file; lines that are not objects are skipped."""
    records = []
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return records
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            records.append(obj)
    return records


def files_under(home: Path, *patterns: str) -> list[Path]:
    return sorted({p for pattern in patterns for p in home.glob(pattern) if p.is_file()})


def last_type_is(*types: str) -> Callable[[list[dict]], str]:
    def check(records: list[dict]) -> str:
        last = next((r.get("type") for r in reversed(records) if r.get("type")), None)
        return "" if last in types else f"the stream ends with {last!r}, not {' or '.join(types)}: cut off"

    return check
