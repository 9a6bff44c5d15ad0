"""Issue 39's adversaries: the probe agent CLI (tests/harnesses/probe_cli) runs, as an agent's shell tool
would, every escape that worked against the first sandbox; each must be refused. One run carries the
probes that need no setup of their own (the default network setting, tight limits so the caps show
quickly); the symlink, daemon and secret probes have runs of their own. Runs as root (the harness drops
to ceiling-agent) and as an ordinary user (the sandbox runs as that user)."""

import json
import os
import socket
from pathlib import Path

import pytest

from harnesses import agent_user
from harnesses.runner import run_one
from harnesses.score import REPO_ROOT
from tests.harnesses import probe_cli
from tests.harnesses.conftest import config_for, needs_bwrap


def _agent_user_problem() -> str:
    try:
        agent_user.agent_user()
    except agent_user.AgentUserError as exc:
        return str(exc)
    return ""


AGENT_USER_PROBLEM = _agent_user_problem()
needs_agent_user = pytest.mark.skipif(bool(AGENT_USER_PROBLEM), reason=AGENT_USER_PROBLEM or "ok")
IS_ROOT = os.geteuid() == 0
LIMITS = dict(max_processes=64, workspace_mb=64, tmp_mb=64, file_mb=32)

PY = "python3 -c "
HANDLE_OPEN = (
    PY
    + '''"
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [('bytes', ctypes.c_uint), ('type', ctypes.c_int), ('f', ctypes.c_ubyte * 128)]
h, mount_id = Handle(bytes=128), ctypes.c_int()
r = libc.name_to_handle_at(-100, b'/workspace', ctypes.byref(h), ctypes.byref(mount_id), 0)
print('name_to_handle_at', r, errno.errorcode.get(ctypes.get_errno()))
h = Handle(bytes=8, type=1)  # an ext4-style handle of inode 2, the root of a host file system
h.f[0] = 2
fd = os.open('/workspace', os.O_RDONLY)
r = libc.open_by_handle_at(fd, ctypes.byref(h), os.O_RDONLY)
print('open_by_handle_at', r, errno.errorcode.get(ctypes.get_errno()))
"'''
)
SYSCALLS = (
    PY
    + '''"
import ctypes, errno, socket
libc = ctypes.CDLL(None, use_errno=True)
def show(name, r):
    print(name, r, errno.errorcode.get(ctypes.get_errno()) if r < 0 else 'ok')
show('unshare_user', libc.unshare(0x10000000))
show('unshare_mount', libc.unshare(0x00020000))
show('ptrace_traceme', libc.ptrace(0, 0, 0, 0))
show('mount_tmpfs', libc.mount(b'none', b'/tmp', b'tmpfs', 0, None))
show('keyctl', libc.syscall(250 if ctypes.sizeof(ctypes.c_void_p) == 8 and __import__('platform').machine() == 'x86_64' else 219, 0, 0, 0, 0))
for family, kind, name in ((socket.AF_INET, socket.SOCK_RAW, 'raw_inet'), (17, socket.SOCK_RAW, 'packet')):
    try:
        socket.socket(family, kind, 1 if family == socket.AF_INET else 0); print(name, 'ok')
    except OSError as exc:
        print(name, -1, errno.errorcode.get(exc.errno))
"'''
)
FORK_BOMB = (
    PY
    + '''"
import os, signal, time
children = []
try:
    for _ in range(2000):
        pid = os.fork()
        if pid == 0:
            time.sleep(30); os._exit(0)
        children.append(pid)
except OSError as exc:
    print('stopped', exc.strerror)
print('forked', len(children))
for pid in children:
    os.kill(pid, signal.SIGKILL)
"'''
)


def _connect(target: str) -> str:
    host, port = target.rsplit(":", 1)
    return (
        f"{PY}\"import socket\ntry:\n    socket.create_connection(('{host}', {port}), timeout=3).close(); "
        f"print('connected')\nexcept OSError as e:\n    print('refused', e)\""
    )


def _via_proxy(target: str) -> str:
    return (
        f"{PY}\"import socket\ns = socket.create_connection(('127.0.0.1', 3128), timeout=5)\n"
        f"s.sendall(b'CONNECT {target} HTTP/1.1\\r\\nHost: {target}\\r\\n\\r\\n')\n"
        f"print(s.recv(200).decode().splitlines()[0])\""
    )


def _run(tmp_path, probes, solution="def run(state, *a, **k):\n    return None\n", **changes):
    cli = probe_cli.install(tmp_path / "probe", probes, solution=solution)
    out = tmp_path / "results"
    run_dir = run_one(config_for(cli, out, **{"network": "proxy", **changes}))
    return run_dir, probe_cli.report(run_dir), json.loads((run_dir / "run.json").read_text())


def _status(report: dict, name: str) -> str:
    return report[name]["stdout"] + report[name]["stderr"]


@pytest.fixture(scope="module")
def host_listener():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield listener.getsockname()[1]
    listener.close()


@pytest.fixture(scope="module")
def default_run(tmp_path_factory, host_listener):
    """One probe run with the default network setting (proxy) and tight resource limits."""
    tmp_path = tmp_path_factory.mktemp("probes")
    port = host_listener
    probes = [
        {
            "name": "control",
            "shell": "python3 -c 'import torch, numpy; print(torch.__version__)' && "
            "printf 'int main(void){return 0;}' > /tmp/t.c && cc /tmp/t.c -o /tmp/t && "
            "/tmp/t && echo compiled && echo ok > /workspace/ok.txt && cat /workspace/ok.txt "
            "&& test -d /sys/devices/system/cpu && test ! -e /sys/fs/cgroup && getent passwd $(id -u) | cut -d: -f1",
        },
        {"name": "identity", "shell": "id -u; grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status"},
        {"name": "handle_open", "shell": HANDLE_OPEN},
        {"name": "syscalls", "shell": SYSCALLS},
        {"name": "unshare_cli", "shell": "unshare -Ur true"},
        {"name": "shadow", "shell": "cat /etc/shadow"},
        {"name": "munge_key", "shell": "cat /etc/munge/munge.key"},
        {"name": "proc_sys", "shell": "echo '|/tmp/x' > /proc/sys/kernel/core_pattern"},
        {"name": "proc_sys_mount", "shell": "grep ' /proc/sys ' /proc/self/mountinfo"},
        {"name": "mountinfo", "shell": "cat /proc/self/mountinfo"},
        {
            "name": "write_outside",
            "shell": "for p in /etc/x /usr/x /x /home/x /run/ceiling/x; do "
            "touch $p 2>/dev/null && echo wrote $p; done; true",
        },
        {"name": "direct_loopback", "shell": _connect(f"127.0.0.1:{port}")},
        {"name": "direct_metadata", "shell": _connect("169.254.169.254:80")},
        {"name": "direct_outside", "shell": _connect("1.1.1.1:443")},
        {"name": "proxy_loopback", "shell": _via_proxy(f"127.0.0.1:{port}")},
        {"name": "proxy_localhost_name", "shell": _via_proxy("localhost:443")},
        {"name": "proxy_metadata", "shell": _via_proxy("169.254.169.254:80")},
        {"name": "proxy_other_host", "shell": _via_proxy("example.com:443")},
        {"name": "fork_bomb", "shell": FORK_BOMB, "timeout_s": 60},
        {
            "name": "big_write_workspace",
            "shell": "head -c 2G /dev/zero > /workspace/big; echo rc=$?; ls -l /workspace/big; rm -f /workspace/big",
        },
        {
            "name": "big_write_tmp",
            "shell": "head -c 2G /dev/zero > /tmp/big; echo rc=$?; ls -l /tmp/big; rm -f /tmp/big",
        },
        {
            "name": "many_files_workspace",
            "shell": "for i in $(seq 1 100); do head -c 1M /dev/zero > "
            "/workspace/f$i || { echo stopped at $i; break; }; done; "
            "du -sm /workspace; rm -f /workspace/f*",
        },
    ]
    return _run(tmp_path, probes, api_hosts="localhost", **LIMITS)


@needs_bwrap
@needs_agent_user
def test_the_agent_can_still_work(default_run):
    """The control: Python with torch, a C compiler, writes in the workspace, its own name."""
    out = default_run[1]["control"]
    assert out["rc"] == 0 and "compiled" in out["stdout"] and out["stdout"].rstrip().endswith("ok\nagent"), out


@needs_bwrap
@needs_agent_user
def test_agent_is_unprivileged_and_filtered(default_run):
    _, report, record = default_run
    uid, *status = report["identity"]["stdout"].split("\n")
    fields = dict(line.split(":\t") for line in status if line)
    assert int(uid) != 0 or not IS_ROOT  # as root the harness drops to ceiling-agent
    if IS_ROOT:
        assert record["confinement"]["user"] == agent_user.AGENT_USER
    assert fields["CapEff"] == fields["CapBnd"] == "0000000000000000"
    assert fields["NoNewPrivs"] == "1" and fields["Seccomp"] == "2"


@needs_bwrap
@needs_agent_user
def test_handle_based_open_of_the_host_root_is_refused(default_run):
    out = _status(default_run[1], "handle_open")
    assert "name_to_handle_at -1 EPERM" in out and "open_by_handle_at -1 EPERM" in out


@needs_bwrap
@needs_agent_user
def test_namespaces_mounts_ptrace_keys_and_raw_sockets_are_refused(default_run):
    report = default_run[1]
    out = _status(report, "syscalls")
    for name in ("unshare_user", "unshare_mount", "ptrace_traceme", "mount_tmpfs", "keyctl", "raw_inet"):
        assert f"{name} -1 EPERM" in out, (name, out)
    assert "packet -1 EAFNOSUPPORT" in out
    assert report["unshare_cli"]["rc"] != 0


@needs_bwrap
@needs_agent_user
def test_host_secrets_and_proc_sys_are_out_of_reach(default_run):
    report = default_run[1]
    assert report["shadow"]["rc"] != 0 and "root:" not in report["shadow"]["stdout"]
    assert report["munge_key"]["rc"] != 0
    assert report["proc_sys"]["rc"] != 0
    assert " ro," in report["proc_sys_mount"]["stdout"] or " ro " in report["proc_sys_mount"]["stdout"]
    assert "wrote" not in report["write_outside"]["stdout"]


@needs_bwrap
@needs_agent_user
def test_mountinfo_names_no_repository_results_or_scratch(default_run):
    run_dir, report, _ = default_run
    mounts = report["mountinfo"]["stdout"]
    assert str(REPO_ROOT) not in mounts and str(run_dir.parents[2]) not in mounts
    if IS_ROOT:  # the workspace and home are tmpfs of their own, not binds of a scratch folder
        assert "/ceiling-" not in mounts


@needs_bwrap
@needs_agent_user
def test_default_network_reaches_nothing_but_the_allow_list(default_run):
    run_dir, report, record = default_run
    assert record["config"]["network"] == "proxy" and record["confinement"]["network"] == "proxy"
    for name in ("direct_loopback", "direct_metadata", "direct_outside"):
        assert _status(report, name).startswith("refused"), (name, report[name])
    for name in ("proxy_loopback", "proxy_metadata", "proxy_other_host"):
        assert "403" in _status(report, name), (name, report[name])
    # localhost is on this run's allow-list, and still refused: it resolves to a loopback address
    assert "403" in _status(report, "proxy_localhost_name")
    log = (run_dir / "logs" / "proxy.log").read_text()
    assert "refused localhost:443: resolves to a non-public address" in log
    assert "refused example.com:443: host not on the allow-list" in log


@needs_bwrap
@needs_agent_user
def test_fork_bomb_is_capped(default_run):
    out = _status(default_run[1], "fork_bomb")
    forked = int(out.split("forked ")[1].split()[0])
    assert "stopped" in out and forked < LIMITS["max_processes"], out


@needs_bwrap
@needs_agent_user
def test_big_writes_are_capped(default_run):
    report, record = default_run[1], default_run[2]
    for name in ("big_write_workspace", "big_write_tmp"):
        out = _status(report, name)
        assert "rc=0" not in out, (name, out)
    if IS_ROOT:
        assert record["confinement"]["workspace_tmpfs"] == f"{LIMITS['workspace_mb']} MiB"
        assert "stopped at" in _status(report, "many_files_workspace")


@needs_bwrap
@needs_agent_user
def test_symlinked_solution_and_native_transcripts_are_refused(tmp_path):
    house = REPO_ROOT / "problems" / "fp8_gemm" / "solutions" / "house.py"
    projects = "~/.claude/projects/probe"
    probes = [
        {
            "name": "plant",
            "shell": f"rm solution.py && ln -s {house} solution.py && mkdir -p {projects} && "
            f"ln -s /proc/self/environ {projects}/environ.jsonl && "
            f"ln -s {REPO_ROOT}/problems/fp8_gemm/problem.toml {projects}/toml.jsonl && "
            f"ln -s /etc/hostname {projects}/host.jsonl && ln -s / ~/.claude/projects/root && "
            f"mkfifo {projects}/fifo.jsonl && echo '{{}}' > {projects}/honest.jsonl",
        }
    ]
    run_dir, report, record = _run(tmp_path, probes, score=True)
    assert report["plant"]["rc"] == 0, report["plant"]
    assert not (run_dir / "solution.py").exists() and record["solution"] is None
    assert record["score"]["status"] == "not scored: no solution.py" and not record["complete"]
    refused = {r["source"]: r["reason"] for r in record["refused_files"]}
    assert "a symlink" in refused["workspace/solution.py"] or "symlink" in refused["workspace/solution.py"]
    for name in ("environ.jsonl", "toml.jsonl", "host.jsonl"):
        assert refused[f"home/.claude/projects/probe/{name}"].startswith("a symlink to"), refused
    assert refused["home/.claude/projects/root"] == "a symlink to /"
    assert refused["home/.claude/projects/probe/fifo.jsonl"].startswith("a special file")
    assert record["native_files"] == ["native/.claude/projects/probe/honest.jsonl"]
    kept = {k["path"]: k for k in record["files"]}
    assert kept["native/.claude/projects/probe/honest.jsonl"]["size_bytes"] == 3


@needs_bwrap
@needs_agent_user
def test_oversized_and_special_solutions_are_refused(tmp_path):
    probes = [{"name": "plant", "shell": "rm solution.py && mkfifo solution.py"}]
    _, _, record = _run(tmp_path / "fifo", probes)
    assert record["refused_files"][0]["source"] == "workspace/solution.py"
    assert "not a regular file" in record["refused_files"][0]["reason"]
    probes = [{"name": "plant", "shell": "head -c 2000000 /dev/zero | tr '\\0' '#' > solution.py"}]
    _, _, record = _run(tmp_path / "big", probes)
    assert "over the cap" in record["refused_files"][0]["reason"] and record["solution"] is None


@needs_bwrap
@needs_agent_user
def test_setsid_daemon_is_killed_at_the_end(tmp_path):
    marker = f"{31000 + os.getpid() % 1000}.{os.getpid()}"
    probes = [
        {
            "name": "daemon",
            "shell": f"setsid sh -c 'exec sleep {marker}' </dev/null >/dev/null 2>&1 & sleep 0.5; echo started",
        }
    ]
    _, report, record = _run(tmp_path, probes)
    assert "started" in report["daemon"]["stdout"] and record["confinement"]["pid_namespace_ended"]
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker.encode() in (proc / "cmdline").read_bytes():
                alive.append(proc.name)
        except OSError:
            pass
    assert not alive, f"the daemon outlived its run: pids {alive}"


@needs_bwrap
@needs_agent_user
def test_secrets_stay_out_of_the_sandbox_and_out_of_results(tmp_path, monkeypatch):
    api_key, other = "sk-probe-0123456789abcdef", "host-only-token-9876543210"
    monkeypatch.setenv("ANTHROPIC_API_KEY", api_key)  # the CLI's own key: it must get it
    monkeypatch.setenv("CEILING_PROBE_DEPLOY_TOKEN", other)  # the harness's: it must not
    probes = [
        {"name": "env", "shell": "env; tr '\\0' '\\n' < /proc/self/environ"},
        {"name": "plant", "shell": "echo \"$ANTHROPIC_API_KEY\" > solution.py"},
    ]
    run_dir, report, record = _run(tmp_path, probes)
    assert other not in json.dumps(report)  # never passed in
    for path in run_dir.rglob("*"):
        if path.is_file():
            text = path.read_bytes()
            assert api_key.encode() not in text and other.encode() not in text, path
    redacted = {r["path"]: r for r in record["redactions"]}
    assert "ANTHROPIC_API_KEY" in redacted["transcript.jsonl"]["names"]
    assert "ANTHROPIC_API_KEY" in redacted["solution.py"]["names"]
    assert "[REDACTED:ANTHROPIC_API_KEY]" in (run_dir / "logs" / "agent.stderr").read_text()
