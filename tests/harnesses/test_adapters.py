"""Every adapter drives its fake CLI through the sandbox: the command is accepted, the transcript is kept
byte-for-byte, completeness and token usage come out right, and only the allowed variables reach the CLI."""

import json

import pytest

from harnesses.agents import ADAPTERS, AdapterError, get_adapter
from harnesses.runner import run_one
from tests.harnesses.conftest import config_for, escape_report, needs_bwrap

NATIVE_TRANSCRIPT = {"codex"}  # the rollout file, not stdout, is the transcript
NO_USAGE = {"kimi"}  # the kimi print stream records no usage


@needs_bwrap
@pytest.mark.parametrize("harness", sorted(ADAPTERS))
def test_fake_cli_run_is_complete_and_kept_verbatim(harness, fake_dir, tmp_path):
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness=harness, effort="high"))
    record = json.loads((run_dir / "run.json").read_text())
    assert record["finished"] and record["complete"], record["incomplete_reason"]
    assert record["exit_code"] == 0 and not record["timed_out"]
    assert run_dir == tmp_path / "out" / "cpu" / "runs" / f"{harness}-fake-model-high-fp8_gemm-t0"
    transcript = run_dir / record["agent"]["transcript"]
    if harness in NATIVE_TRANSCRIPT:
        assert transcript.parent.parts[-4:-3] == ("sessions",) or "native" in transcript.parts
        assert (run_dir / "logs" / "agent.stdout").read_bytes().startswith(b'{"type": "thread.started"')
    else:
        assert transcript.read_bytes() == (run_dir / "logs" / "agent.stdout").read_bytes()
    tokens = record["agent"]["tokens"]
    assert set(tokens) >= {"fresh_input", "cache_read", "cache_write", "output", "reasoning"}
    assert (tokens["total"] is None) == (harness in NO_USAGE)  # None: not recorded, never a claimed 0
    assert "def run(state, a, a_scale)" in (run_dir / "solution.py").read_text()
    assert (run_dir / "transcript.html").stat().st_size > 1000
    assert record["score"]["status"] == "not scored: score=false"


@needs_bwrap
def test_droid_settings_sidecar_is_kept_beside_the_transcript(fake_dir, tmp_path):
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="droid"))
    settings = json.loads((run_dir / "transcript.settings.json").read_text())
    assert settings["tokenUsage"]["cacheReadTokens"] == 12000
    assert json.loads((run_dir / "run.json").read_text())["agent"]["tokens"]["cache_read"] == 12000


@needs_bwrap
def test_only_the_adapters_variables_reach_the_cli(fake_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other-vendor")
    monkeypatch.setenv("MY_PRIVATE_TOKEN", "secret")
    (fake_dir / "fake_behaviour.json").write_text(json.dumps({"mode": "hostile"}))
    run_dir = run_one(config_for(fake_dir, tmp_path / "out", harness="claude"))
    record = json.loads((run_dir / "run.json").read_text())
    assert "ANTHROPIC_API_KEY" in record["agent_env_names"]
    assert "OPENAI_API_KEY" not in record["agent_env_names"] and "MY_PRIVATE_TOKEN" not in record["agent_env_names"]
    assert record["agent_env_names"] == sorted(record["agent_env_names"])
    # What the CLI itself saw, reported from inside the sandbox, is exactly that list.
    # (PWD is set inside by the sandbox's chdir, not passed.)
    assert set(escape_report(run_dir)["env"]) - {"PWD"} == set(record["agent_env_names"])
    assert "MAX_THINKING_TOKENS" not in record["agent_env_names"]  # effort=default sets no thinking budget


def test_commands_for_model_and_effort():
    home = __import__("pathlib").Path("/home/agent")
    codex = get_adapter("codex").build("codex", "gpt-5", "high", "PROMPT", home)
    assert codex.argv[:3] == ("codex", "exec", "--json") and "model_reasoning_effort=high" in codex.argv
    assert codex.argv[-1] == "PROMPT" and codex.env["CODEX_HOME"] == "/home/agent/.codex"
    claude = get_adapter("claude").build("claude", "opus", "low", "P", home)
    assert claude.env["MAX_THINKING_TOKENS"] == "4000" and ("--model", "opus") == claude.argv[-2:]
    assert not get_adapter("gemini").build("gemini", "m", "high", "P", home).effort_applied
    with pytest.raises(AdapterError, match="effort='extreme'"):
        get_adapter("droid").build("droid", "m", "extreme", "P", home)


def test_missing_cli_names_the_fix(tmp_path):
    with pytest.raises(AdapterError, match="cli_dir=FOLDER"):
        get_adapter("opencode").find_executable(str(tmp_path))
    with pytest.raises(AdapterError, match="unknown; choose one of"):
        get_adapter("aider")
