"""opencode: `opencode run --format json -m PROVIDER/MODEL PROMPT`; the stream is the transcript.
Effort is passed as `--variant` (opencode's reasoning-effort variants)."""

from pathlib import Path

from .base import Adapter, Invocation, effort_value, files_under


def build(exe: str, model: str, effort: str, prompt: str, home: Path) -> Invocation:
    effort = effort_value(effort, "opencode")
    argv = [exe, "run", "--format", "json"]
    if model:
        argv += ["-m", model]
    if effort != "default":
        argv += ["--variant", effort]
    return Invocation(tuple(argv + [prompt]), {"OPENCODE_DISABLE_AUTOUPDATE": "1"})


def last_step_stop(records: list[dict]) -> str:
    finishes = [r for r in records if r.get("type") == "step_finish"]
    reason = (finishes[-1].get("part") or {}).get("reason") if finishes else None
    return "" if reason == "stop" else f"last step_finish reason is {reason!r}, not 'stop': cut off"


ADAPTER = Adapter(
    name="opencode",
    executables=("opencode",),
    env_names=(
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "OPENCODE_API_KEY",
    ),
    transcript_format="opencode",
    build=build,
    native_files=lambda home, stdout: files_under(home, ".local/share/opencode/storage/**/*.json"),
    complete_marker=last_step_stop,
)
