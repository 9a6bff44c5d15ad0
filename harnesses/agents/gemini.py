"""Gemini CLI: `gemini -p PROMPT -o stream-json --yolo`; the stream is the transcript, session files
under ~/.gemini/tmp are kept in native/. No effort flag: effort is recorded, not applied."""

from pathlib import Path

from .base import Adapter, Invocation, effort_value, files_under, last_type_is


def build(exe: str, model: str, effort: str, prompt: str, home: Path) -> Invocation:
    effort = effort_value(effort, "gemini")
    argv = [exe, "-p", prompt, "-o", "stream-json", "--yolo"]
    if model:
        argv += ["-m", model]
    return Invocation(tuple(argv), effort_applied=effort == "default")


ADAPTER = Adapter(
    name="gemini",
    executables=("gemini",),
    env_names=(
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
    ),
    transcript_format="gemini-stream",
    build=build,
    native_files=lambda home, stdout: files_under(home, ".gemini/tmp/**/chats/*"),
    complete_marker=last_type_is("result"),
)
