"""Factory droid `droid exec -o stream-json` output, plus the session's settings sidecar.

Token usage is only in the sidecar (`settings.json` beside the stream, or `<name>.settings.json`):
`tokenUsage{inputTokens, outputTokens, cacheCreationTokens, cacheReadTokens, thinkingTokens}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import Builder
from ..coerce import as_list, count, get, to_float, to_int, to_str, to_text
from ..edits import (
    edit_change,
    multi_edit_change,
    parse_apply_patch,
    shell_writes,
    write_change,
)
from ..jsonl import read_json
from ..model import FileChange, TokenUsage, Transcript
from .claude_common import spawned
from .records import records, type_and_time

FORMAT, HARNESS = "droid", "Factory droid"


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    for line, obj in records(b, path):
        kind, time_s = type_and_time(obj)
        if kind == "system" and obj.get("subtype") == "init":
            b.session_id, b.cwd = to_str(obj.get("session_id")), to_str(obj.get("cwd"))
            b.model, b.effort = to_str(obj.get("model")), to_str(obj.get("reasoning_effort"))
            b.add(
                "system",
                subtype="init",
                time_s=time_s,
                line=line.number,
                text=f"Session started, model {b.model or '?'}, reasoning effort {b.effort or '?'}",
            )
        elif kind == "message":
            role = "user" if obj.get("role") == "user" else "assistant"
            b.add(role, text=to_str(obj.get("text")), time_s=time_s, line=line.number)
        elif kind == "reasoning":
            b.add("reasoning", text=to_str(obj.get("text")), time_s=time_s, line=line.number)
        elif kind == "tool_call":
            # `toolCallId` pairs a call with its result; `id` is the record's own id (older builds
            # wrote only `id`, the same on both records).
            name, params = to_str(obj.get("toolName")), obj.get("parameters")
            call_id = to_str(obj.get("toolCallId") or obj.get("id"))
            b.call(call_id, name, params, changes=_changes(name, params), time_s=time_s, line=line.number)
            if name == "Task" and isinstance(params, dict):
                spawned(b, call_id, params)
        elif kind == "tool_result":
            value = obj.get("value")
            call_id = to_str(obj.get("toolCallId") or obj.get("id"))
            b.result(call_id, to_text(value), bool(obj.get("isError")), time_s, line=line.number)
        elif kind == "completion":
            b.complete = True
            b.stated_turns = to_int(obj.get("numTurns")) if obj.get("numTurns") is not None else None
            duration_ms = to_float(obj.get("durationMs"))
            b.duration_s = duration_ms / 1000 if duration_ms is not None else None
            final = to_str(obj.get("finalText")).strip()
            last = b.last_event()
            if final and not (last is not None and last.kind == "assistant" and last.text.strip() == final):
                b.add("assistant", subtype="final text", text=final, time_s=time_s, line=line.number)
            b.add("system", subtype="completion", time_s=time_s, line=line.number, text="Run finished")
        elif kind == "error":
            message = to_str(obj.get("message") or get(obj, "error", "message"))
            b.add("error", text=message, time_s=time_s, line=line.number)
            b.complete, b.incomplete_reason = False, f"error: {message}"
        else:
            b.raw(line, obj)
    read_settings(b, path)
    return b.build()


def _changes(name: str, params: Any) -> list[FileChange]:
    if not isinstance(params, dict):
        return []
    path = to_str(params.get("file_path") or params.get("path"))
    if name == "Edit" and path:
        return [
            edit_change(
                path,
                to_str(params.get("old_str", params.get("old_string"))),
                to_str(params.get("new_str", params.get("new_string"))),
                bool(params.get("replace_all")),
            )
        ]
    if name == "MultiEdit" and path:
        edits = [
            {
                "old_string": get(e, "old_str") or get(e, "old_string"),
                "new_string": get(e, "new_str") or get(e, "new_string"),
            }
            for e in as_list(params.get("edits"))
        ]
        return [multi_edit_change(path, edits)]
    if name in ("Create", "Write") and path:
        return [write_change(path, to_str(params.get("content")), "create" if name == "Create" else "write")]
    if name == "ApplyPatch":
        return parse_apply_patch(to_str(params.get("input") or params.get("patch")))
    if name in ("Execute", "Bash", "Shell"):
        return shell_writes(to_str(params.get("command")))
    return []


def read_settings(b: Builder, path: Path) -> None:
    """Token usage, model and effort from the session's settings sidecar (shared with droid_session)."""
    for candidate in (
        path.with_name(path.stem + ".settings.json"),
        path.parent / "settings.json",
        path.parent / f"{b.session_id}.settings.json",
    ):
        settings = read_json(candidate) if candidate.is_file() else None
        if isinstance(settings, dict):
            break
    else:
        b.warnings.append("no settings.json sidecar: token usage not recorded")
        return
    usage = settings.get("tokenUsage")
    if isinstance(usage, dict):
        b.stated_tokens = TokenUsage(
            fresh_input=count(usage, "inputTokens"),
            cache_read=count(usage, "cacheReadTokens"),
            cache_write=count(usage, "cacheCreationTokens"),
            output=count(usage, "outputTokens"),
            reasoning=count(usage, "thinkingTokens"),
        )
    b.model = b.model or to_str(settings.get("model"))
    b.effort = b.effort or to_str(settings.get("reasoningEffort"))
