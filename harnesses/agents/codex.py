"""OpenAI Codex: `codex exec --json PROMPT`; the rollout file, found by the session (thread) id under
$CODEX_HOME/sessions, is the transcript (it names the model and carries diffs); the --json stream is
kept in logs/ and used when no rollout is found."""

from pathlib import Path

from .base import Adapter, Invocation, effort_value, last_type_is, read_records


def build(exe: str, model: str, effort: str, prompt: str, home: Path) -> Invocation:
    effort = effort_value(effort, "codex")
    argv = [exe, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
    if model:
        argv += ["-m", model]
    if effort != "default":
        argv += ["-c", f"model_reasoning_effort={effort}"]
    return Invocation(tuple(argv + [prompt]), {"CODEX_HOME": str(home / ".codex")})


def rollout(home: Path, stdout: Path) -> list[Path]:
    thread = next((r.get("thread_id") for r in read_records(stdout) if r.get("type") == "thread.started"), None)
    sessions = home / ".codex" / "sessions"
    if not thread or not sessions.is_dir():
        return []
    return sorted(sessions.rglob(f"rollout-*{thread}.jsonl"))


ADAPTER = Adapter(
    name="codex",
    executables=("codex",),
    env_names=("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY", "AZURE_OPENAI_API_KEY"),
    transcript_format="codex-rollout",
    build=build,
    native_files=rollout,
    transcript_from_native=True,
    complete_marker=last_type_is("turn.completed"),
)
