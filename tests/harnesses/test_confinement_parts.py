"""The sandbox's parts on their own, without bubblewrap: the seccomp table against the kernel headers, the
collector's refusals, the proxy's address rule and allow-list, and the redaction of secrets."""

import os
import re
import socket
from pathlib import Path

import pytest

from harnesses import netproxy, redact, seccomp_filter
from harnesses.collect import Collector, Missing, Refused, read_untrusted

HEADERS = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    "aarch64": Path("/usr/include/asm-generic/unistd.h"),
}


@pytest.mark.parametrize("machine", sorted(HEADERS))
def test_seccomp_numbers_match_the_kernel_headers(machine):
    header = HEADERS[machine]
    if not header.is_file():
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    defined = dict(re.findall(r"#define __NR(?:3264)?_(\w+)\s+(\d+)", header.read_text()))
    for name, number in seccomp_filter.SYSCALLS[machine].items():
        assert int(defined[name]) == number, (machine, name)


@pytest.mark.parametrize("machine", sorted(seccomp_filter.SYSCALLS))
def test_seccomp_program_is_well_formed(machine):
    insns = seccomp_filter.program(machine)
    assert len(insns) < 4096 and insns[-1] == (seccomp_filter.RET_K, 0, 0, seccomp_filter.RET_ALLOW)
    for i, (code, jt, jf, _k) in enumerate(insns):  # every jump lands inside the program
        if code in (seccomp_filter.JEQ_K, seccomp_filter.JSET_K, seccomp_filter.JGE_K):
            assert i + 1 + max(jt, jf) < len(insns)
    assert len(seccomp_filter.program_bytes(machine)) == 8 * len(insns)


def test_unknown_machine_is_a_clear_error():
    with pytest.raises(seccomp_filter.SeccompError, match="riscv64.*sandbox=none"):
        seccomp_filter.program("riscv64")


def test_collector_refuses_links_special_files_and_oversize(tmp_path):
    root = tmp_path / "workspace"
    (root / "real").mkdir(parents=True)
    (root / "real" / "ok.txt").write_text("fine")
    (tmp_path / "secret.txt").write_text("host only")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    (root / "linkdir").symlink_to(root / "real")
    os.mkfifo(root / "fifo")
    (root / "big.txt").write_bytes(b"x" * 100)
    assert read_untrusted(root, Path("real/ok.txt"), 10) == b"fine"
    for relative, reason in (
        ("link.txt", "symlink"),
        ("linkdir/ok.txt", "symlink"),
        ("fifo", "not a regular"),
        ("big.txt", "over the cap"),
        ("../secret.txt", "not a plain relative"),
    ):
        with pytest.raises(Refused, match=reason):
            read_untrusted(root, Path(relative), 50)
    with pytest.raises(Missing):
        read_untrusted(root, Path("absent.py"), 50)


def test_collector_defuses_the_home_and_records_what_it_kept(tmp_path):
    home, run_dir = tmp_path / "home", tmp_path / "run"
    (home / "projects").mkdir(parents=True)
    (home / "projects" / "a.jsonl").write_text("{}\n")
    (home / "projects" / "env.jsonl").symlink_to("/proc/self/environ")
    (home / "root").symlink_to("/")
    run_dir.mkdir()
    collector = Collector(run_dir)
    collector.defuse(home)
    assert sorted(p.name for p in home.rglob("*")) == ["a.jsonl", "projects"]
    assert {r["source"]: r["reason"] for r in collector.refused} == {
        "home/projects/env.jsonl": "a symlink to /proc/self/environ",
        "home/root": "a symlink to /",
    }
    copied = collector.copy(home, Path("projects/a.jsonl"), run_dir / "native" / "a.jsonl")
    assert copied.read_text() == "{}\n"
    assert collector.kept[0].size_bytes == 3 and len(collector.kept[0].sha256) == 64


def test_proxy_address_rule():
    for address in (
        "127.0.0.1",
        "::1",
        "169.254.169.254",
        "10.0.0.1",
        "192.168.1.1",
        "0.0.0.0",
        "fe80::1",
        "::ffff:127.0.0.1",
        "224.0.0.1",
        "100.64.0.1",
    ):
        assert not netproxy.public_address(address), address
    for address in ("1.1.1.1", "2606:4700:4700::1111", "160.79.104.10"):
        assert netproxy.public_address(address), address


def test_proxy_allow_list_follows_the_cli_and_its_base_url():
    hosts = netproxy.allowed_hosts("claude", "Extra.Example.org, ", {"ANTHROPIC_BASE_URL": "https://gw.corp:8443/v1"})
    assert hosts == ("api.anthropic.com", "extra.example.org", "gw.corp")


def test_proxy_refuses_anything_but_connect_to_an_allowed_host(tmp_path):
    proxy = netproxy.AllowListProxy(tmp_path / "p.sock", ("localhost",)).start()
    try:

        def ask(request: bytes) -> str:
            with socket.socket(socket.AF_UNIX) as client:
                client.connect(str(proxy.path))
                client.sendall(request)
                return client.recv(200).decode().splitlines()[0]

        assert "403" in ask(b"GET http://localhost/ HTTP/1.1\r\n\r\n")
        assert "403" in ask(b"CONNECT localhost:22 HTTP/1.1\r\n\r\n")
        assert "403" in ask(b"CONNECT localhost:443 HTTP/1.1\r\n\r\n")  # allowed name, loopback address
        assert "403" in ask(b"CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n")
    finally:
        proxy.stop()
    assert [line.split(" ", 2)[1] for line in proxy.log] == ["refused"] * 4


def test_redaction_replaces_every_secret_and_names_it(tmp_path):
    env = {
        "ANTHROPIC_API_KEY": "sk-live-abcdefgh123",
        "MY_DEPLOY_TOKEN": "tok-0987654321",
        "SHORT_KEY": "abc",
        "PATH": "/usr/bin",
    }
    secrets = redact.secret_values(("ANTHROPIC_API_KEY",), env)
    assert set(secrets) == {"ANTHROPIC_API_KEY", "MY_DEPLOY_TOKEN"}  # too short to redact safely: SHORT_KEY
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "agent.stderr").write_text("key=sk-live-abcdefgh123 tok-0987654321 sk-live-abcdefgh123")
    (tmp_path / "clean.txt").write_text("nothing here")
    (tmp_path / "link").symlink_to(tmp_path / "logs" / "agent.stderr")
    notes = redact.redact_folder(tmp_path, secrets)
    assert [(n.path, n.names, n.count) for n in notes] == [
        ("logs/agent.stderr", ("ANTHROPIC_API_KEY", "MY_DEPLOY_TOKEN"), 3)
    ]
    assert (
        tmp_path / "logs" / "agent.stderr"
    ).read_text() == "key=[REDACTED:ANTHROPIC_API_KEY] [REDACTED:MY_DEPLOY_TOKEN] [REDACTED:ANTHROPIC_API_KEY]"


def test_a_missing_agent_user_is_a_usage_error_naming_the_fix():
    from harnesses import agent_user

    if os.geteuid() != 0:
        assert agent_user.agent_user("no-such-user-ceiling").uid == os.geteuid()  # an ordinary user is itself
        return
    with pytest.raises(agent_user.AgentUserError, match="useradd --system .*scripts/setup.sh"):
        agent_user.agent_user("no-such-user-ceiling")


def test_sandbox_none_still_collects_through_the_collector(fake_dir, tmp_path):
    import json

    from harnesses.runner import run_one
    from tests.harnesses.conftest import config_for

    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="claude", sandbox="none"))
    record = json.loads((run_dir / "run.json").read_text())
    assert record["complete"] and record["confinement"] == {"sandbox": "none"}
    assert [k["path"] for k in record["files"]] == ["solution.py"]
