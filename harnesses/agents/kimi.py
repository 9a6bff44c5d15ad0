"""Kimi CLI: `kimi --print --output-format stream-json -p PROMPT`; the stream is the transcript. It has no
end record and no usage: completeness comes from the exit status and the last message. Effort other than
default turns on `--thinking`; the session's wire.jsonl (with token usage) is kept in native/."""

from pathlib import Path

from .base import Adapter, Invocation, effort_value, files_under


def build(exe: str, model: str, effort: str, prompt: str, home: Path) -> Invocation:
    effort = effort_value(effort, "kimi")
    argv = [exe, "--print", "--output-format", "stream-json", "--yolo"]
    if model:
        argv += ["-m", model]
    if effort not in ("default", "low"):
        argv += ["--thinking"]
    return Invocation(tuple(argv + ["-p", prompt]))


def last_is_answer(records: list[dict]) -> str:
    last = records[-1] if records else {}
    if last.get("role") == "assistant" and not last.get("tool_calls"):
        return ""
    return "the stream does not end with an assistant answer: cut off"


ADAPTER = Adapter(
    name="kimi",
    executables=("kimi",),
    env_names=("KIMI_API_KEY", "MOONSHOT_API_KEY", "KIMI_BASE_URL"),
    transcript_format="kimi-print",
    build=build,
    native_files=lambda home, stdout: files_under(home, ".kimi/sessions/**/*.jsonl"),
    complete_marker=last_is_answer,
)
