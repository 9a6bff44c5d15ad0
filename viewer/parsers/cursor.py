"""Cursor agent CLI `-p --output-format stream-json` output.

Tool calls arrive as `tool_call` records (`started`, then `completed`) holding one
`<name>ToolCall` object with `args` and `result{success|error}`. Usage is only in the final
`result` record. A `taskToolCall` starts a subagent: it gets a node under that call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import Builder
from ..coerce import count, get, to_float, to_str, to_text, to_time_s
from ..edits import edit_change, shell_writes, with_header, write_change
from ..model import FileChange, TokenUsage, Transcript
from .records import records

FORMAT, HARNESS = "cursor", "Cursor agent"


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    thinking_block = 0
    for line, obj in records(b, path):
        kind, subtype, time_s = (
            to_str(obj.get("type")),
            to_str(obj.get("subtype")),
            to_time_s(obj.get("timestamp_ms") or obj.get("timestamp")),
        )
        if kind == "system" and subtype == "init":
            b.session_id, b.cwd = to_str(obj.get("session_id")), to_str(obj.get("cwd"))
            b.model = to_str(obj.get("model"))
            b.add(
                "system",
                subtype="init",
                time_s=time_s,
                line=line.number,
                text=f"Session started, model {b.model or '?'}, permission mode {to_str(obj.get('permissionMode')) or '?'}",
            )
        elif kind in ("user", "assistant"):
            text = to_text(get(obj, "message", "content"))
            b.add(kind, text=text, time_s=time_s, line=line.number)
        elif kind == "thinking":
            if subtype == "completed":
                thinking_block += 1
            elif not b.append_text(None, "reasoning", to_str(obj.get("text")), thinking_block):
                b.add("reasoning", text=to_str(obj.get("text")), time_s=time_s, line=line.number)
        elif kind == "tool_call":
            _tool_call(b, obj, subtype, line.number, time_s)
        elif kind == "result":
            _result(b, obj, line.number, time_s)
        else:
            b.raw(line, obj)
    return b.build()


def _tool_call(b: Builder, obj: dict, subtype: str, line: int, time_s) -> None:
    call_id, wrapper = to_str(obj.get("call_id")), obj.get("tool_call")
    if not isinstance(wrapper, dict) or not wrapper:
        b.raw(line, obj, why="tool call without a tool")
        return
    key = next(iter(wrapper))
    body = wrapper[key] if isinstance(wrapper[key], dict) else {}
    name = key.removesuffix("ToolCall")
    args = body.get("args")
    if b.tool_event(call_id) is None:
        b.call(call_id, name, args, changes=_changes(name, args, None), time_s=time_s, line=line)
        if name == "task" and isinstance(args, dict):
            b.register_spawn_call(
                call_id,
                to_str(args.get("subagentType") or args.get("subagent_type")),
                to_str(args.get("description")),
                to_str(args.get("prompt")),
            )
    if subtype == "completed":
        result = body.get("result") if isinstance(body.get("result"), dict) else {}
        failed = "error" in result or "failure" in result
        outcome = result.get("error") or result.get("failure") if failed else result.get("success", result)
        b.result(call_id, _output(outcome), failed, time_s, changes=_changes(name, args, outcome) or None, line=line)


def _output(outcome: Any) -> str:
    if isinstance(outcome, dict):
        if "stdout" in outcome or "stderr" in outcome:
            text = to_str(outcome.get("stdout")) + to_str(outcome.get("stderr"))
            code = outcome.get("exitCode")
            return text + (f"\n[exit code {code}]" if code is not None else "")
        for key in ("content", "output", "message", "result"):
            if key in outcome:
                return to_text(outcome[key])
    return to_text(outcome)


def _changes(name: str, args: Any, outcome: Any) -> list[FileChange]:
    if not isinstance(args, dict):
        return []
    path = to_str(args.get("path") or args.get("filePath"))
    recorded = with_header(path, to_str(get(outcome, "diffString") or get(outcome, "diff")))
    if name == "edit" and path:
        replace = args.get("strReplace") if isinstance(args.get("strReplace"), dict) else args
        old = to_str(replace.get("oldText") or replace.get("old_string"))
        new = to_str(replace.get("newText") or replace.get("new_string"))
        rebuilt = edit_change(path, old, new)
        if recorded:
            return [FileChange(path, "edit", recorded, "tool", replacements=rebuilt.replacements)]
        return [rebuilt] if old or new else []
    if name == "write" and path:
        return [write_change(path, to_str(args.get("fileText") or args.get("contents") or args.get("content")))]
    if name == "shell":
        return shell_writes(to_str(args.get("command")))
    return []


def _result(b: Builder, obj: dict, line: int, time_s) -> None:
    usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else None
    if usage:
        # Cursor reports Anthropic-style counts: inputTokens excludes cache reads and writes.
        b.stated_tokens = TokenUsage(
            fresh_input=count(usage, "inputTokens"),
            cache_read=count(usage, "cacheReadTokens"),
            cache_write=count(usage, "cacheWriteTokens"),
            output=count(usage, "outputTokens"),
        )
    duration_ms = to_float(obj.get("duration_ms"))
    if duration_ms is not None:
        b.duration_s = duration_ms / 1000
    b.complete = not obj.get("is_error")
    b.incomplete_reason = f"the run ended with an error: {to_str(obj.get('result'))[:300]}"
    b.add(
        "error" if obj.get("is_error") else "system",
        subtype="result",
        time_s=time_s,
        line=line,
        text="Run finished" + (" with an error" if obj.get("is_error") else ""),
    )
