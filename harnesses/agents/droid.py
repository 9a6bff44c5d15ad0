"""Factory droid: `droid exec -o stream-json --skip-permissions-unsafe PROMPT`; the stream is the
transcript, and the session's `<id>.settings.json` (the only place with token usage) is kept beside it
as `transcript.settings.json`, where the viewer looks for it."""

from pathlib import Path

from .base import Adapter, Invocation, effort_value, files_under, last_type_is, read_records


def build(exe: str, model: str, effort: str, prompt: str, home: Path) -> Invocation:
    effort = effort_value(effort, "droid")
    argv = [exe, "exec", "-o", "stream-json", "--skip-permissions-unsafe"]
    if model:
        argv += ["--model", model]
    if effort != "default":
        argv += ["--reasoning-effort", effort]
    return Invocation(tuple(argv + [prompt]))


def settings(home: Path, stdout: Path) -> Path | None:
    sid = next((r.get("session_id") for r in read_records(stdout) if r.get("session_id")), None)
    found = sorted((home / ".factory").rglob(f"{sid}.settings.json")) if sid and (home / ".factory").is_dir() else []
    return found[0] if found else None


ADAPTER = Adapter(
    name="droid",
    executables=("droid",),
    env_names=("FACTORY_API_KEY",),
    transcript_format="droid",
    build=build,
    native_files=lambda home, stdout: files_under(home, ".factory/sessions/**/*"),
    sidecar=settings,
    complete_marker=last_type_is("completion"),
)
