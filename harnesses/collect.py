"""After the agent: keep its transcript byte-for-byte, its solution, and judge whether it completed.

Nothing the agent left is trusted. Every file copied out of the workspace or the CLI's home is opened
component by component from a directory descriptor with O_NOFOLLOW (a symlink anywhere on the path is
refused, not followed), must be a regular file no larger than the size cap, and is read once from that
descriptor: what is recorded (size, sha256) is what was copied. A refused file is named in run.json with
the reason. The solution handed to the scorer is the copy in the run folder, never the workspace's file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from harnesses.agents.base import Adapter, read_records
from harnesses.budget import Outcome

FILE_CAP_BYTES = 256 << 20  # a transcript can be long; anything larger is not a transcript
SOLUTION_CAP_BYTES = 1 << 20  # the scorer's own cap on a solution file


class Refused(Exception):
    pass


class Missing(Refused):
    pass


@dataclass(frozen=True)
class Kept:
    path: str  # relative to the run folder
    source: str  # relative to the workspace or home it came from
    size_bytes: int
    sha256: str


@dataclass(frozen=True)
class Collected:
    transcript: Path | None  # inside the run folder
    native: tuple[Path, ...]
    solution: Path | None
    complete: bool
    incomplete_reason: str
    tokens: dict
    cost_usd: float | None
    kept: tuple[Kept, ...] = ()
    refused: tuple[dict, ...] = field(default=())  # {"source": ..., "reason": ...}


def read_untrusted(root: Path, relative: Path, cap_bytes: int) -> bytes:
    """The bytes of root/relative, opened without following any symlink below `root`."""
    parts = Path(relative).parts
    if not parts or any(p in ("..", "/") for p in parts):
        raise Refused(f"not a plain relative path: {relative}")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            try:
                next_fd = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError as exc:
                raise Refused(f"folder {part!r}: {exc.strerror} (a symlink is refused)") from None
            os.close(fd)
            fd = next_fd
        try:
            file_fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
        except FileNotFoundError:
            raise Missing(f"{relative}: no such file") from None
        except OSError as exc:
            raise Refused(f"{exc.strerror} (a symlink is refused)") from None
    finally:
        os.close(fd)
    try:
        info = os.fstat(file_fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"not a regular file (mode {stat.filemode(info.st_mode)})")
        if info.st_size > cap_bytes:
            raise Refused(f"{info.st_size} bytes, over the cap of {cap_bytes}")
        with os.fdopen(os.dup(file_fd), "rb") as f:
            data = f.read(cap_bytes + 1)
        if len(data) > cap_bytes:
            raise Refused(f"grew past the cap of {cap_bytes} bytes while read")
        return data
    finally:
        os.close(file_fd)


class Collector:
    """Copies files out of one untrusted folder into the run folder, keeping a record of each."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.kept: list[Kept] = []
        self.refused: list[dict] = []

    def copy(self, root: Path, relative: Path, target: Path, cap_bytes: int = FILE_CAP_BYTES) -> Path | None:
        label = f"{root.name}/{relative}"
        try:
            data = read_untrusted(root, relative, cap_bytes)
        except Missing:
            return None
        except Refused as exc:
            self.refused.append({"source": label, "reason": str(exc)})
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.kept.append(
            Kept(str(target.relative_to(self.run_dir)), label, len(data), hashlib.sha256(data).hexdigest())
        )
        return target

    def defuse(self, root: Path) -> None:
        """Remove every symlink and special file under `root` (a folder the agent wrote, after every one of
        its processes has ended), naming each as refused: the adapters' globs then cannot follow one."""
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder) / name
                mode = path.lstat().st_mode
                if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
                    continue
                what = (
                    f"a symlink to {os.readlink(path)}"
                    if stat.S_ISLNK(mode)
                    else f"a special file ({stat.filemode(mode)})"
                )
                self.refused.append({"source": f"{root.name}/{path.relative_to(root)}", "reason": what})
                path.unlink()


def _inside(path: Path, root: Path) -> Path | None:
    """`path` relative to `root` when it is lexically under it (adapters list files by glob)."""
    try:
        return path.relative_to(root)
    except ValueError:
        return None


def keep_files(adapter: Adapter, home: Path, workspace: Path, stdout: Path, run_dir: Path) -> tuple:
    """Copy native session files (under native/, paths relative to the home), the transcript and the solution."""
    collector = Collector(run_dir)
    collector.defuse(home)
    native = []
    for path in adapter.native_files(home, stdout):
        relative = _inside(path, home)
        if relative is None:
            collector.refused.append({"source": str(path), "reason": "outside the CLI's home"})
            continue
        copied = collector.copy(home, relative, run_dir / "native" / relative)
        if copied:
            native.append(copied)
    transcript = None
    if adapter.transcript_from_native and native:
        transcript = native[0]
    elif stdout.stat().st_size:  # the harness's own file: the CLI's stdout went into it through a pipe
        transcript = run_dir / "transcript.jsonl"
        transcript.write_bytes(stdout.read_bytes())
    sidecar = adapter.sidecar(home, stdout) if adapter.sidecar else None
    if sidecar and transcript is not None and _inside(sidecar, home) is not None:
        collector.copy(home, _inside(sidecar, home), transcript.with_name(transcript.stem + ".settings.json"))
    solution = collector.copy(workspace, Path("solution.py"), run_dir / "solution.py", SOLUTION_CAP_BYTES)
    return transcript, tuple(native), solution, collector


def judge(
    adapter: Adapter, outcome: Outcome, limit_s: float, stdout: Path, run_dir: Path, home: Path, workspace: Path
) -> Collected:
    transcript, native, solution, collector = keep_files(adapter, home, workspace, stdout, run_dir)
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
    if any(r["source"].endswith("/solution.py") for r in collector.refused):
        reasons.append(
            "solution.py refused: "
            + next(r["reason"] for r in collector.refused if r["source"].endswith("/solution.py"))
        )
    return Collected(
        transcript,
        native,
        solution,
        not reasons,
        "; ".join(dict.fromkeys(reasons)),
        tokens,
        cost,
        tuple(collector.kept),
        tuple(collector.refused),
    )
