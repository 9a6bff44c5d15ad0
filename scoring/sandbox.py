"""The worker's sandbox: its own PID, mount and network namespaces, every file system read-only but its
scratch and cache folders, and no capabilities.

`worker_command` wraps `python -m scoring.worker` in util-linux's `unshare` (present on the GPU machines
and CI, where bubblewrap may not be) and a few lines of shell that run as the namespace's root before the
solution exists: bind the two writable folders, remount every other mount read-only, then `setpriv` drops
every capability and sets no_new_privs, so the solution cannot remount anything writable again. In its
namespaces the worker sees only its own processes (no /proc/<judge>, no ptrace of the judge), has only a
loopback that is down, and holds only the descriptors the judge gave it.

The network namespace is not only hygiene: measured on an H100 (scripts/probe_judge_ipc.py), a worker in
its own PID namespace but the host's network namespace opened the judge's CUDA IPC event, yet recording it
did not order the judge's stream (the judge's span came out shorter than the call); with its own network
namespace too, it did. The judge checks this on every worker before it imports the solution (its clock's
calibration, scoring/judge/link.py), and the worker checks its own file system (`lockdown_report`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

# Mounts that stay as they are: the device nodes and CUDA's IPC files (/dev, /dev/shm), the kernel's views.
KEPT_MOUNTS = ("/dev", "/dev/shm", "/dev/pts", "/dev/mqueue", "/proc", "/sys")

LOCKDOWN_SCRIPT = r"""
set -e
scratch="$1"; cache="$2"; shift 2
mount --bind "$scratch" "$scratch"
mount --bind "$cache" "$cache"
for mp in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
  case "$mp" in
    "$scratch"|"$cache"|/dev|/dev/*|/proc|/proc/*|/sys|/sys/*) ;;
    *) mount -o remount,bind,ro "$mp" 2>/dev/null || echo "sandbox: could not make $mp read-only" >&2 ;;
  esac
done
# A session of its own: kill(0, sig) from the solution then reaches its own process group only, never
# unshare or the judge (red team round 2: SIGUSR1 to the group killed the judge).
exec setsid --wait setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$@"
"""


def scratch_prefix(judge_pid: int) -> str:
    """The worker's scratch folder is named by its judge, so that the scorer can remove what a judge killed
    before its own cleanup left behind (scoring/isolation.py)."""
    return f"ceiling-worker-{judge_pid}-"


def cache_folder(solution_path: Path) -> Path:
    """The worker's compile caches (Triton, CuPy, inductor), one folder per solution file's contents: a
    solution can fill only its own cache, never the one another solution or a reference line reads."""
    digest = hashlib.sha256(solution_path.read_bytes()).hexdigest()[:16] if solution_path.is_file() else "none"
    folder = Path(os.environ.get("CEILING_WORKER_CACHE", Path.home() / ".cache" / "ceiling" / "worker")) / digest
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def why_not_available() -> str | None:
    """Why this machine cannot sandbox a worker, or None."""
    missing = [tool for tool in ("unshare", "setpriv", "setsid", "mount") if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not found (util-linux)"
    if os.geteuid() != 0:
        return "not root: the namespaces and mounts need root (run the scorer as root, as on the GPU machines)"
    probe = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount", "--net", "true"], capture_output=True, text=True, timeout=30
    )
    if probe.returncode != 0:
        return f"unshare refused: {probe.stderr.strip()[:200]}"
    return None


def worker_interpreter() -> list[str]:
    """How the worker's Python starts: without the user site folder (`-s`), whose .pth files run before any
    of the worker's code. HOME is the solution's compile cache, which outlives the run: a .pth the solution
    wrote there in one run ran first in the next (red team round 3)."""
    return [sys.executable, "-s", "-m", "scoring.worker"]


def worker_command(worker_args: list[str], scratch: Path, cache: Path) -> list[str]:
    return [
        "unshare",
        "--pid",
        "--fork",
        "--kill-child",
        "--mount-proc",
        "--net",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        LOCKDOWN_SCRIPT,
        "sh",
        str(scratch),
        str(cache),
        *worker_interpreter(),
        *worker_args,
    ]


def lockdown_report(repo_root: Path) -> dict:
    """Run in the worker before the solution is imported: what the sandbox does hold, tested, not assumed."""

    def writable(folder: Path) -> bool:
        try:
            probe = folder / f".ceiling-write-probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
            return True
        except OSError:
            return False

    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    return {
        "pid_in_namespace": os.getpid(),
        "processes_visible": len([p for p in os.listdir("/proc") if p.isdigit()]),
        "repository_writable": writable(repo_root),
        "capabilities_effective": fields.get("CapEff", "").strip(),
        "no_new_privs": fields.get("NoNewPrivs", "").strip() == "1",
        "own_session": os.getsid(0) == os.getpid(),
        "network_interfaces": sorted(name for _, name in socket.if_nameindex()),
    }
