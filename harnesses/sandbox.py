"""The agent's sandbox: a bubblewrap command line around the CLI.

Inside, the system (/usr, /etc and the merged-usr links) and the Python and CLI installs are read-only;
the workspace (at /workspace) and a fresh, empty home (at /home/agent, where the CLI keeps its config
and native session files) are the only writable places besides a private /tmp that is discarded. The
repository, results, other runs and the user's own home are not mounted; any of them that lies under a
mounted path is covered by an empty tmpfs. GPU device nodes (/dev/nvidia*) are bound when present.
Network: 'none' (a private network namespace) or 'host' (the CLI must reach its model API).
"""

from __future__ import annotations

import glob
import os
import shutil
import site
import sys
from dataclasses import dataclass
from pathlib import Path

WORKSPACE = "/workspace"
HOME = "/home/agent"
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
NETWORKS = ("none", "host")


class SandboxError(RuntimeError):
    pass


@dataclass(frozen=True)
class SandboxPolicy:
    workspace: Path  # host folder mounted writable at /workspace
    home: Path  # host folder mounted writable at /home/agent
    network: str = "none"  # none | host
    readonly: tuple[Path, ...] = ()  # extra host paths visible read-only at the same path (CLI installs)
    hidden: tuple[Path, ...] = ()  # host paths covered by an empty tmpfs if a mount would expose them
    gpu_devices: bool = True  # bind /dev/nvidia* when present


def bwrap_path() -> str:
    found = shutil.which("bwrap")
    if not found:
        raise SandboxError("bubblewrap (bwrap) is not installed: `apt-get install -y bubblewrap` "
                           "(scripts/install_test_system_packages.sh), or run with sandbox=none (unsafe)")
    return found


def python_paths() -> tuple[Path, ...]:
    """The interpreter's install (and user site) so python and torch work inside."""
    paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent}
    user_site = Path(site.getusersitepackages())
    if user_site.is_dir():
        paths.add(user_site.resolve())
    return tuple(sorted(paths))


def _under(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def _cover(secrets: list[Path], mounts: list[Path]) -> list[str]:
    """tmpfs over every secret path that one of `mounts` would otherwise expose."""
    args: list[str] = []
    for secret in secrets:
        if any(_under(secret, m) for m in mounts):
            args += ["--tmpfs", str(secret)]
    return args


def command(policy: SandboxPolicy, argv: list[str], env: dict[str, str]) -> list[str]:
    """The bwrap command that runs `argv` with exactly `env`, in /workspace."""
    if policy.network not in NETWORKS:
        raise SandboxError(f"network={policy.network!r}: choose one of {', '.join(NETWORKS)}")
    cmd = [bwrap_path(), "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
           "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
    if policy.network == "none":
        cmd.append("--unshare-net")
    secrets = sorted({p.resolve() for p in policy.hidden})
    system: list[Path] = []
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            cmd += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            cmd += ["--ro-bind", name, name]
            system.append(path)
    cmd += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind-try", "/sys", "/sys"]
    cmd += _cover(secrets, system)  # before the extra binds, which may lie inside a covered folder
    extra = [p for p in sorted({p.resolve() for p in (*python_paths(), *policy.readonly)})
             if not any(_under(p, m) for m in system)]
    for path in extra:
        cmd += ["--ro-bind", str(path), str(path)]
    cmd += _cover([s for s in secrets if not any(_under(s, m) for m in system)], extra)
    if policy.network == "host" and Path("/etc/resolv.conf").is_symlink():
        target = Path("/etc/resolv.conf").resolve()
        cmd += ["--ro-bind-try", str(target), str(target)]
    if policy.gpu_devices:
        for node in sorted(glob.glob("/dev/nvidia*")):
            cmd += ["--dev-bind", node, node]
    cmd += ["--bind", str(policy.workspace.resolve()), WORKSPACE, "--bind", str(policy.home.resolve()), HOME,
            "--chdir", WORKSPACE, "--clearenv"]
    for key, value in sorted(env.items()):
        cmd += ["--setenv", key, value]
    return cmd + ["--", *argv]


def sandbox_path_env(readonly: tuple[Path, ...]) -> str:
    """PATH inside: the CLI folders, the interpreter's bin, then the system."""
    dirs = [str(p) for p in readonly] + [str(Path(sys.executable).parent)]
    dirs += ["/usr/local/bin", "/usr/bin", "/bin"]
    return ":".join(dict.fromkeys(dirs))
