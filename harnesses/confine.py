"""One agent CLI run, confined: the scratch folders it may write (size-capped), its cgroup, the
allow-list proxy, the sandbox command, the wall-clock budget, and the clean-up that ends every process
the run left (through the cgroup where there is one) before anything it wrote is read.

`Scratch` is made before the workspace is filled and released after collection; `run_confined`
returns the outcome and a record of what confined the run, for run.json.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from harnesses import agent_user, limits, netproxy, sandbox
from harnesses.budget import Outcome, run_with_budget
from harnesses.config import HarnessConfig

CPU_SLACK_S = 60
PID_NAMESPACE_WAIT_S = 10.0
FILES_MB = 16  # the harness's own files for the run (init.py, passwd, the proxy socket): a tmpfs of its own


@dataclass(frozen=True)
class Scratch:
    root: Path  # 0711: the agent user may walk through it to its own folders, not list it
    workspace: Path
    home: Path
    files: Path  # the harness's: init.py, passwd, the proxy socket, staging folders
    user: agent_user.AgentUser
    tmpfs_notes: tuple[str, ...]  # workspace, home, files: '' for each that got its tmpfs, else why not


def make_scratch(root: Path, config: HarnessConfig, confined: bool) -> Scratch:
    user = agent_user.agent_user() if confined else agent_user.AgentUser("", os.getuid(), os.getgid(), False)
    root.chmod(0o711)
    workspace, home, files = root / "workspace", root / "home", root / "files"
    notes = []
    for folder in (workspace, home):
        folder.mkdir()
        notes.append(
            limits.mount_tmpfs(folder, config.workspace_mb, user.uid, user.gid) if confined else "sandbox=none"
        )
    files.mkdir()
    # A tmpfs here too: what the sandbox binds from it then shows in its mountinfo without the scratch path.
    notes.append(limits.mount_tmpfs(files, FILES_MB, 0, 0, 0o755) if confined and user.switch else "not needed")
    return Scratch(root, workspace, home, files, user, tuple(notes))


def hand_over(scratch: Scratch) -> None:
    """Give the filled workspace and the home to the agent user."""
    for folder in (scratch.workspace, scratch.home):
        agent_user.hand_over(folder, scratch.user)
        for path in folder.rglob("*"):
            agent_user.hand_over(path, scratch.user, 0o755 if path.is_dir() else 0o644)


def release(scratch: Scratch) -> None:
    """Unmount and remove what the agent had (after collection); the run folder beside it stays."""
    for folder, note in zip((scratch.workspace, scratch.home, scratch.files), scratch.tmpfs_notes):
        if not note:
            limits.unmount(folder)
    for folder in (scratch.workspace, scratch.home, scratch.files):
        shutil.rmtree(folder, ignore_errors=True)


def _rlimits(config: HarnessConfig) -> tuple[tuple[str, int], ...]:
    cpu_s = int(config.time_limit_s * (os.cpu_count() or 1)) + CPU_SLACK_S
    return (
        ("nproc", config.max_processes),
        ("fsize", config.file_mb << 20),
        ("core", 0),
        ("nofile", 65536),
        ("cpu", cpu_s),
    )


def _sandbox_pid(info_read_fd: int) -> int | None:
    """The host pid of the sandbox's first process, from bubblewrap's --info-fd JSON."""
    os.set_blocking(info_read_fd, False)
    try:
        return int(json.loads(os.read(info_read_fd, 65536))["child-pid"])
    except (OSError, ValueError, KeyError):
        return None


def wait_for_pid_namespace_end(pid: int | None, timeout_s: float = PID_NAMESPACE_WAIT_S) -> bool:
    """bubblewrap reports its command's exit before its first process has ended, and the kernel kills the
    rest of the PID namespace only as that process ends: wait until it has (gone, or a zombie)."""
    deadline = time.monotonic() + timeout_s
    while pid is not None and time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return pid is None


def run_confined(
    config: HarnessConfig,
    scratch: Scratch,
    argv: list[str],
    env: dict,
    readonly: tuple[Path, ...],
    hidden: tuple[Path, ...],
    logs: Path,
) -> tuple[Outcome, dict]:
    cgroup, cgroup_note = limits.make_cgroup(
        f"{config.effective_run_id()}-{scratch.root.name}", config.max_processes, config.memory_mb
    )
    proxy = None
    if config.network == "proxy":
        hosts = netproxy.allowed_hosts(config.harness, config.api_hosts, env)
        proxy = netproxy.AllowListProxy(
            scratch.files / "proxy.sock", hosts, scratch.user.uid if scratch.user.switch else None
        ).start()
        env = dict(env, **sandbox.proxy_env())
    policy = sandbox.SandboxPolicy(
        scratch.workspace,
        scratch.home,
        scratch.files,
        config.network,
        readonly,
        hidden,
        tmp_mb=config.tmp_mb,
        rlimits=_rlimits(config),
        proxy_socket=proxy.path if proxy else None,
    )
    info_read, info_write = os.pipe()
    prepared = sandbox.command(policy, argv, env, info_fd=info_write)
    (logs / "sandbox.log").write_text(
        json.dumps(
            {"policy": dataclasses.asdict(policy), "argv": prepared.argv[: prepared.argv.index("--seccomp")]},
            indent=1,
            default=str,
        )
    )
    try:
        outcome = run_with_budget(
            prepared.argv,
            config.time_limit_s,
            logs / "agent.stdout",
            logs / "agent.stderr",
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            pass_fds=(*prepared.pass_fds, info_write),
            before_exec=cgroup.enter if cgroup else None,
        )
    finally:
        for fd in (*prepared.pass_fds, info_write):
            os.close(fd)
        namespace_ended = wait_for_pid_namespace_end(_sandbox_pid(info_read))
        os.close(info_read)
        left = cgroup.kill_all() if cgroup else 0
        if cgroup:
            cgroup.remove()
        if proxy:
            proxy.stop()
            (logs / "proxy.log").write_text("\n".join(proxy.log) + ("\n" if proxy.log else ""))
    record = {
        "user": prepared.user.name,
        "uid": prepared.user.uid,
        "network": config.network,
        "allowed_hosts": list(proxy.hosts) if proxy else [],
        "seccomp": True,
        "cgroup": f"v{cgroup.version}" if cgroup else f"none: {cgroup_note}",
        "pid_namespace_ended": namespace_ended,
        "processes_killed_at_end": left,
        "workspace_tmpfs": scratch.tmpfs_notes[0] or f"{config.workspace_mb} MiB",
        "home_tmpfs": scratch.tmpfs_notes[1] or f"{config.workspace_mb} MiB",
        "limits": {
            "max_processes": config.max_processes,
            "memory_mb": config.memory_mb if cgroup else None,
            "tmp_mb": config.tmp_mb,
            "file_mb": config.file_mb,
        },
    }
    return outcome, record
