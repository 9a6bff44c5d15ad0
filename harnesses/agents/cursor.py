"""Cursor agent: `cursor-agent -p PROMPT --output-format stream-json --force`; the stream is the
transcript. The CLI has no effort flag (models carry it in their names, e.g. gpt-5-high): effort is
recorded, not applied."""

from pathlib import Path

from .base import Adapter, Invocation, effort_value, last_type_is


def build(exe: str, model: str, effort: str, prompt: str, home: Path) -> Invocation:
    effort = effort_value(effort, "cursor")
    argv = [exe, "-p", prompt, "--output-format", "stream-json", "--force"]
    if model:
        argv += ["--model", model]
    return Invocation(tuple(argv), effort_applied=effort == "default")


ADAPTER = Adapter(
    name="cursor",
    executables=("cursor-agent", "agent"),
    env_names=("CURSOR_API_KEY",),
    transcript_format="cursor",
    build=build,
    native_files=lambda home, stdout: [],
    complete_marker=last_type_is("result"),
)
