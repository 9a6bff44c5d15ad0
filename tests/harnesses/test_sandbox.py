"""X25 (reading the answer): a hostile fake agent tries to read the repository, the held-out shapes,
another run and the user's own agent config, to write outside its workspace and to reach the network;
every attempt fails, while the same calls inside the workspace work (the control)."""

import json
import os
import socket
from pathlib import Path

from harnesses import sandbox
from harnesses.runner import run_one
from harnesses.score import REPO_ROOT
from harnesses.workspace import make_workspace
from tests.harnesses.conftest import config_for, escape_report, needs_bwrap

HELD_OUT = ("odd_m_3000", "decode_m64_7168", "mlp_down_rect", "odd_m_33")


def test_workspace_holds_only_public_files(tmp_path):
    ws = make_workspace(REPO_ROOT / "problems" / "fp8_gemm", tmp_path / "ws")
    assert sorted(p.name for p in ws.iterdir()) == [
        "check.py",
        "problem.json",
        "problem.py",
        "prompt.md",
        "solution.py",
    ]
    public = (ws / "problem.json").read_text()
    for name in HELD_OUT:
        assert name not in public
    assert set(json.loads(public)) == {
        "name",
        "title",
        "summary",
        "precision",
        "tolerance",
        "forbidden_ops",
        "visible_shapes",
    }
    assert "square_8192" in public and "square_64" in public


@needs_bwrap
def test_hostile_agent_cannot_escape(fake_dir, tmp_path, monkeypatch):
    out = tmp_path / "results"
    other_run = out / "cpu" / "runs" / "someone-else-t0"
    other_run.mkdir(parents=True)
    (other_run / "solution.py").write_text("the other run's answer\n")
    user_home = tmp_path / "userhome"
    (user_home / ".claude").mkdir(parents=True)
    (user_home / ".claude" / "settings.json").write_text('{"apiKey": "personal"}')
    monkeypatch.setenv("HOME", str(user_home))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    toml = REPO_ROOT / "problems" / "fp8_gemm" / "problem.toml"
    behaviour = {
        "mode": "hostile",
        "probe_read": [
            str(toml),
            str(REPO_ROOT / "scoring" / "run.py"),
            str(other_run / "solution.py"),
            str(user_home / ".claude" / "settings.json"),
            "/workspace/problem.py",
        ],
        "probe_list": [str(REPO_ROOT), str(out), str(user_home), "/workspace"],
        "probe_write": [
            "/etc/ceiling-escape",
            "/usr/ceiling-escape",
            str(REPO_ROOT / "escape.txt"),
            str(out / "escape.txt"),
            str(user_home / "escape.txt"),
            "/workspace/control.txt",
        ],
        "probe_connect": [f"127.0.0.1:{port}"],
    }
    (fake_dir / "fake_behaviour.json").write_text(json.dumps(behaviour))
    run_dir = run_one(config_for(fake_dir, out, harness="claude", network="none"))
    listener.close()
    report = escape_report(run_dir)
    controls = {"/workspace/problem.py", "/workspace/control.txt", "/workspace"}
    for kind in ("read", "list", "write"):
        for target, outcome in report[kind].items():
            if target in controls:
                assert outcome.startswith("ok"), (kind, target, outcome)
            else:
                assert outcome.startswith("denied"), (kind, target, outcome)
    assert report["list"][str(REPO_ROOT)].startswith("denied")  # not even the folder is there
    assert report["connect"][f"127.0.0.1:{port}"].startswith("denied")
    for path in (REPO_ROOT / "escape.txt", out / "escape.txt", user_home / "escape.txt", Path("/etc/ceiling-escape")):
        assert not path.exists()


@needs_bwrap
def test_network_host_policy_reaches_the_host(fake_dir, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    (fake_dir / "fake_behaviour.json").write_text(
        json.dumps({"mode": "hostile", "probe_connect": [f"127.0.0.1:{port}"]})
    )
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="gemini", network="host"))
    listener.close()
    assert escape_report(run_dir)["connect"][f"127.0.0.1:{port}"] == "ok"


def test_gpu_nodes_are_bound_and_secrets_covered(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox.glob, "glob", lambda pattern: ["/dev/nvidia0", "/dev/nvidiactl"])
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: "bwrap")
    policy = sandbox.SandboxPolicy(
        tmp_path, tmp_path, tmp_path / "files", "none", hidden=(Path("/usr/share/secret-repo"),)
    )
    prepared = sandbox.command(policy, ["true"], {"PATH": "/usr/bin"})
    for fd in prepared.pass_fds:
        os.close(fd)
    cmd = prepared.argv
    joined = " ".join(cmd)
    assert "--dev-bind /dev/nvidia0 /dev/nvidia0" in joined and "--dev-bind /dev/nvidiactl" in joined
    assert "--tmpfs /usr/share/secret-repo" in joined and "--unshare-all" in cmd and "--share-net" not in cmd
    assert cmd[cmd.index("--clearenv") + 1 : cmd.index("--seccomp")] == ["--setenv", "PATH", "/usr/bin"]
