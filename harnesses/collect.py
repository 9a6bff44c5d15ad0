"""After the agent: keep its transcript byte-for-byte, its solution, and judge whether it completed."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from harnesses.agents.base import Adapter, read_records
from harnesses.budget import Outcome


@dataclass(frozen=True)
class Collected:
    transcript: Path | None  # inside the run folder
    native: tuple[Path, ...]
    solution: Path | None
    complete: bool
    incomplete_reason: str
    tokens: dict
    cost_usd: float | None


def keep_files(adapter: Adapter, home: Path, workspace: Path, stdout: Path, run_dir: Path) -> tuple:
    """Copy native session files (under native/, paths relative to the home), the transcript and the solution."""
    native = []
    for path in adapter.native_files(home, stdout):
        target = run_dir / "native" / path.relative_to(home)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)  # byte-for-byte
        native.append(target)
    transcript = None
    if adapter.transcript_from_native and native:
        transcript = native[0]
    elif stdout.stat().st_size:
        transcript = run_dir / "transcript.jsonl"
        shutil.copyfile(stdout, transcript)
    sidecar = adapter.sidecar(home, stdout) if adapter.sidecar else None
    if sidecar and transcript is not None:
        shutil.copyfile(sidecar, transcript.with_name(transcript.stem + ".settings.json"))
    solution = None
    if (workspace / "solution.py").is_file():
        solution = run_dir / "solution.py"
        shutil.copyfile(workspace / "solution.py", solution)
    return transcript, tuple(native), solution


def judge(adapter: Adapter, outcome: Outcome, limit_s: float, stdout: Path, run_dir: Path, home: Path,
          workspace: Path) -> Collected:
    transcript, native, solution = keep_files(adapter, home, workspace, stdout, run_dir)
    reasons = []
    if outcome.timed_out:
        reasons.append(f"wall-clock limit of {limit_s:g} s reached; the process group was ended")
    elif outcome.exit_code != 0:
        reasons.append(f"the CLI exited with status {outcome.exit_code}")
    if adapter.complete_marker:
        marker = adapter.complete_marker(read_records(stdout))
        if marker:
            reasons.append(marker)
    tokens, cost = {}, None
    if transcript is None:
        reasons.append("no transcript: the CLI wrote nothing")
    else:
        from viewer import load_transcript

        parsed = load_transcript(transcript)
        tokens, cost = parsed.tokens.as_dict(), parsed.cost_usd
        if not parsed.complete and parsed.incomplete_reason:
            reasons.append(f"transcript: {parsed.incomplete_reason}")
    return Collected(transcript, native, solution, not reasons, "; ".join(dict.fromkeys(reasons)), tokens, cost)
