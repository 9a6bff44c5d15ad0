"""A run's resource limits beyond the wall clock: a cgroup for processes and memory (and for ending every
process of the run, setsid daemons included), and size-capped tmpfs for the workspace and the home.

The cgroup is made where the harness may make one (root, cgroup v2 with the pids and memory controllers
at the root, or the v1 pids, memory and freezer hierarchies); elsewhere the run says why it has none and
relies on the rest: the process rlimit set inside the sandbox's user namespace (sandbox_init.py), the
file-size rlimit, and the PID namespace, whose processes the kernel kills when its first process ends.
The workspace and home tmpfs need root to mount; without it they stay folders on disk and only the
file-size rlimit caps them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT = "ceiling-agents"
KILL_WAIT_S = 10.0


@dataclass(frozen=True)
class RunCgroup:
    """One run's cgroup: a folder per hierarchy (one on v2; pids, memory and freezer on v1)."""

    folders: tuple[Path, ...]
    version: int

    def enter(self) -> None:
        """Move the calling process in (the child, before it executes the sandbox)."""
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def pids(self) -> list[int]:
        found = set()
        for folder in self.folders:
            try:
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return sorted(found)

    def kill_all(self) -> int:
        """End every process still in the run; returns how many there were."""
        left = self.pids()
        if not left:
            return 0
        kill_file = self.folders[0] / "cgroup.kill"
        if self.version == 2 and kill_file.exists():
            kill_file.write_text("1")
        else:
            freezer = next((f for f in self.folders if (f / "freezer.state").exists()), None)
            if freezer:  # a frozen fork bomb cannot fork between the listing and the kill
                (freezer / "freezer.state").write_text("FROZEN")
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if freezer:
                (freezer / "freezer.state").write_text("THAWED")
        deadline = time.monotonic() + KILL_WAIT_S
        while self.pids() and time.monotonic() < deadline:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        return len(left)

    def remove(self) -> None:
        for folder in self.folders:
            try:
                folder.rmdir()
            except OSError:
                pass


def _v2_folder(name: str, max_processes: int, memory_mb: int) -> Path:
    parent = CGROUP_ROOT / PARENT
    parent.mkdir(exist_ok=True)
    (parent / "cgroup.subtree_control").write_text("+pids +memory")
    folder = parent / name
    folder.mkdir()
    (folder / "pids.max").write_text(str(max_processes))
    if memory_mb:
        (folder / "memory.max").write_text(str(memory_mb << 20))
        if (folder / "memory.swap.max").exists():
            (folder / "memory.swap.max").write_text("0")
    return folder


def _v1_folders(name: str, max_processes: int, memory_mb: int) -> tuple[Path, ...]:
    folders = []
    for controller in ("pids", "memory", "freezer"):
        folder = CGROUP_ROOT / controller / PARENT / name
        folder.mkdir(parents=True)
        folders.append(folder)
    (folders[0] / "pids.max").write_text(str(max_processes))
    if memory_mb:
        (folders[1] / "memory.limit_in_bytes").write_text(str(memory_mb << 20))
    return tuple(folders)


def make_cgroup(name: str, max_processes: int, memory_mb: int) -> tuple[RunCgroup | None, str]:
    """The run's cgroup, or None and why there is none."""
    if os.geteuid() != 0:
        return None, "not root: no cgroup of its own (the process rlimit and the PID namespace bound the run)"
    try:
        if (CGROUP_ROOT / "cgroup.controllers").exists():
            if not {"pids", "memory"} <= set((CGROUP_ROOT / "cgroup.controllers").read_text().split()):
                return None, "cgroup v2 without the pids and memory controllers at its root"
            return RunCgroup((_v2_folder(name, max_processes, memory_mb),), 2), ""
        if (CGROUP_ROOT / "pids").is_dir() and (CGROUP_ROOT / "memory").is_dir():
            return RunCgroup(_v1_folders(name, max_processes, memory_mb), 1), ""
        return None, f"no cgroup v2 controllers and no v1 pids/memory hierarchies under {CGROUP_ROOT}"
    except OSError as exc:
        return None, f"could not make a cgroup: {exc}"


def mount_tmpfs(folder: Path, size_mb: int, uid: int, gid: int, mode: int = 0o700) -> str:
    """Mount a size-capped tmpfs on `folder` (empty); returns '' or why it could not."""
    if os.geteuid() != 0:
        return "not root: not a size-capped tmpfs (only the file-size rlimit caps it)"
    done = subprocess.run(
        [
            "mount",
            "-t",
            "tmpfs",
            "-o",
            f"size={size_mb}m,mode={mode:o},uid={uid},gid={gid},nosuid,nodev",
            "tmpfs",
            str(folder),
        ],
        capture_output=True,
        text=True,
    )
    return "" if done.returncode == 0 else f"mount tmpfs refused: {done.stderr.strip()}"


def unmount(folder: Path) -> None:
    subprocess.run(["umount", "--lazy", str(folder)], capture_output=True)
