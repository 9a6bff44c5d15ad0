"""The agent's sandbox: the bubblewrap command line around the CLI (docs/harnesses.md, threat model).

Layout inside: a fresh root holding only read-only /usr (and the merged-usr links), a few named files of
/etc (certificates, the loader cache, alternatives; passwd, group and hosts are written for the run),
/sys's device tree, the Python and CLI installs read-only at their own paths, the workspace at
/workspace and a fresh home at /home/agent (the only writable places besides a size-capped private /tmp), a fresh /proc with
/proc/sys read-only, a minimal /dev, and the GPU device nodes when present. The repository, results,
other runs and the user's own home are never bound; any of them under a bound folder is covered by an
empty tmpfs.

Privilege: every namespace unshared (`--unshare-all`), the network shared only for network=host,
`--cap-drop ALL`, `--disable-userns` and the seccomp filter of seccomp_filter.py; bubblewrap itself runs
unprivileged (agent_user.py). The first program inside is sandbox_init.py (resource limits, the relay to
the allow-list proxy), which then executes the CLI.
"""

from __future__ import annotations

import glob
import os
import shutil
import site
import sys
from dataclasses import dataclass
from pathlib import Path

from harnesses import agent_user, seccomp_filter

WORKSPACE = "/workspace"
HOME = "/home/agent"
RUN_DIR = "/run/ceiling"  # inside: init.py and the proxy's socket
PROXY_PORT = 3128
MERGED_USR_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# /etc narrowed to what the CLIs, Python, compilers and TLS need; the rest of the host's /etc (shadow,
# keys, service configs) is not there at all.
ETC_KEPT = (
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "crypto-policies",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "timezone",
    "nsswitch.conf",
    "host.conf",
    "gai.conf",
    "protocols",
    "services",
    "mime.types",
    "os-release",
    "bash.bashrc",
    "profile",
    "inputrc",
    "terminfo",
    "magic",
    "magic.mime",
)
# /sys narrowed to the device tree NVML, CUDA and CPU-topology readers walk; not /sys/fs (the host's cgroups,
# named after other runs) nor /sys/kernel.
SYS_KEPT = ("devices", "bus", "class", "dev", "module")
NETWORKS = ("none", "proxy", "host")
INIT_SOURCE = Path(__file__).with_name("sandbox_init.py")


class SandboxError(RuntimeError):
    pass


@dataclass(frozen=True)
class SandboxPolicy:
    workspace: Path  # host folder mounted writable at /workspace
    home: Path  # host folder mounted writable at /home/agent
    files: Path  # host folder (the harness's) for the run's init.py, passwd, group, hosts and staging
    network: str = "none"  # none | proxy (the allow-list proxy only) | host (unsafe, debugging)
    readonly: tuple[Path, ...] = ()  # extra host paths visible read-only at the same path (CLI installs)
    hidden: tuple[Path, ...] = ()  # host paths covered by an empty tmpfs if a bind would expose them
    gpu_devices: bool = True  # bind /dev/nvidia* when present
    tmp_mb: int = 4096  # size cap of the private /tmp (RAM-backed)
    rlimits: tuple[tuple[str, int], ...] = ()  # (sandbox_init name, value): nproc, fsize, core, nofile, cpu
    proxy_socket: Path | None = None  # host path of the allow-list proxy's socket (network=proxy)


@dataclass(frozen=True)
class Prepared:
    argv: list[str]  # the whole command: user switch, bwrap, init, CLI
    pass_fds: tuple[int, ...]  # the seccomp filter's descriptor; close it once the process started
    user: agent_user.AgentUser


def bwrap_path() -> str:
    found = shutil.which("bwrap")
    if not found:
        raise SandboxError(
            "bubblewrap (bwrap) is not installed: `apt-get install -y bubblewrap` "
            "(scripts/install_test_system_packages.sh), or run with sandbox=none (unsafe)"
        )
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


def _outermost(paths: set[Path]) -> list[Path]:
    """The paths none of the others contains (binding a folder binds what is under it)."""
    return [p for p in sorted(paths) if not any(q != p and _under(p, q) for q in paths)]


def _write_run_files(policy: SandboxPolicy, user: agent_user.AgentUser) -> Path:
    folder = policy.files / "etc"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "passwd").write_text(
        f"agent:x:{user.uid}:{user.gid}:agent:{HOME}:/bin/bash\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    )
    (folder / "group").write_text(f"agent:x:{user.gid}:\nnogroup:x:65534:\n")
    (folder / "hosts").write_text("127.0.0.1 localhost sandbox\n::1 localhost\n")
    shutil.copyfile(INIT_SOURCE, folder / "init.py")
    for path in (policy.files, folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def _system_args() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in MERGED_USR_LINKS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in ETC_KEPT:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for name in SYS_KEPT:
        args += ["--ro-bind-try", f"/sys/{name}", f"/sys/{name}"]
    return args


def command(policy: SandboxPolicy, argv: list[str], env: dict[str, str], info_fd: int | None = None) -> Prepared:
    """The command that runs `argv` sandboxed with exactly `env`, in /workspace; bubblewrap writes the
    sandbox's first process's host pid (JSON `child-pid`) to `info_fd` when given."""
    if policy.network not in NETWORKS:
        raise SandboxError(f"network={policy.network!r}: choose one of {', '.join(NETWORKS)}")
    if policy.network == "proxy" and policy.proxy_socket is None:
        raise SandboxError("network=proxy needs the proxy's socket (harnesses/netproxy.py starts it)")
    user = agent_user.agent_user()
    etc = _write_run_files(policy, user)
    cmd = [
        bwrap_path(),
        "--die-with-parent",
        "--new-session",
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--hostname",
        "sandbox",
    ]
    if policy.network == "host":
        cmd.append("--share-net")
    cmd += _system_args()
    for name in ("passwd", "group", "hosts"):
        cmd += ["--ro-bind", str(etc / name), f"/etc/{name}"]
    # /proc/sys read-only (a bind of the host's, whose per-namespace entries show the reader's namespaces):
    # the user namespace already refuses the host-global knobs, this refuses the run's own too.
    cmd += [
        "--proc",
        "/proc",
        "--ro-bind",
        "/proc/sys",
        "/proc/sys",
        "--dev",
        "/dev",
        "--size",
        str(policy.tmp_mb << 20),
        "--tmpfs",
        "/tmp",
    ]
    secrets = sorted({p.resolve() for p in policy.hidden})
    system = [Path("/usr")]
    extra = [
        p
        for p in _outermost({p.resolve() for p in (*python_paths(), *policy.readonly)})
        if not any(_under(p, m) for m in system)
    ]
    staged = []
    for i, path in enumerate(extra):
        source = path
        if user.switch:  # bound onto a folder the agent user can reach, in the launcher's mount namespace
            source = policy.files / "stage" / str(i)
            source.mkdir(parents=True, exist_ok=True)
            staged.append((path, source))
        cmd += ["--ro-bind", str(source), str(path)]
    if user.switch:
        (policy.files / "stage").chmod(0o755)
    cmd += [arg for s in secrets if any(_under(s, m) for m in (*system, *extra)) for arg in ("--tmpfs", str(s))]
    if policy.network == "host":
        for path in {Path("/etc/resolv.conf"), Path("/etc/resolv.conf").resolve()}:
            cmd += ["--ro-bind-try", str(path), str(path)]
    if policy.gpu_devices:
        for node in sorted(glob.glob("/dev/nvidia*")):
            cmd += ["--dev-bind", node, node]
    cmd += ["--ro-bind", str(etc / "init.py"), f"{RUN_DIR}/init.py"]
    init = [sys.executable, "-I", "-S", f"{RUN_DIR}/init.py"]
    if policy.network == "proxy":
        cmd += ["--bind", str(policy.proxy_socket), f"{RUN_DIR}/proxy.sock"]
        init += ["--relay", f"{PROXY_PORT}:{RUN_DIR}/proxy.sock"]
    for name, value in policy.rlimits:
        init += ["--rlimit", f"{name}={value}"]
    cmd += [
        "--bind",
        str(policy.workspace.resolve()),
        WORKSPACE,
        "--bind",
        str(policy.home.resolve()),
        HOME,
        "--remount-ro",
        "/",
        "--chdir",
        WORKSPACE,
        "--clearenv",
    ]  # the fresh root itself: read-only
    for key, value in sorted(env.items()):
        cmd += ["--setenv", key, value]
    seccomp = seccomp_filter.filter_fd()
    if info_fd is not None:
        cmd += ["--info-fd", str(info_fd)]
    cmd += ["--seccomp", str(seccomp), "--", *init, "--", *argv]
    return Prepared(agent_user.wrap(cmd, user, staged), (seccomp,), user)


def proxy_env() -> dict[str, str]:
    """What points the CLI at the relay (network=proxy): Node, Python and curl read these."""
    url = f"http://127.0.0.1:{PROXY_PORT}"
    return {
        "HTTPS_PROXY": url,
        "HTTP_PROXY": url,
        "https_proxy": url,
        "http_proxy": url,
        "NO_PROXY": "",
        "no_proxy": "",
    }


def sandbox_path_env(readonly: tuple[Path, ...]) -> str:
    """PATH inside: the CLI folders, the interpreter's bin, then the system."""
    dirs = [str(p) for p in readonly] + [str(Path(sys.executable).parent)]
    dirs += ["/usr/local/bin", "/usr/bin", "/bin"]
    return ":".join(dict.fromkeys(dirs))
