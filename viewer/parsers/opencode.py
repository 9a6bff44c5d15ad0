"""opencode `run --format json` output: `{type, timestamp (ms), sessionID, part}` lines.

Usage and cost are per step (`step_finish`) and summed. A `task` tool names its child session in
its metadata; events of another sessionID are that child's and go under the task call. The
stream names no model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import MAIN, Builder
from ..coerce import count, get, to_float, to_str, to_text, to_time_s
from ..edits import edit_change, shell_writes, unified, with_header, write_change
from ..model import FileChange, TokenUsage, Transcript
from .claude_common import spawned
from .records import records, type_and_time

FORMAT, HARNESS = "opencode", "opencode"


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    steps, cost, last_reason = 0, None, ""
    for line, obj in records(b, path):
        kind, time_s = type_and_time(obj)
        part = obj.get("part")
        session = to_str(obj.get("sessionID") or get(part, "sessionID"))
        if session and not b.session_id:
            b.session_id = session
        agent = MAIN if not session or session == b.session_id else session
        if kind == "done":  # the session went idle (run.ts, 1.x); `rejected` names refused permissions
            rejected = [to_str(r) for r in obj.get("rejected") or [] if r]
            text = f"Run finished ({to_str(obj.get('reason')) or 'done'})"
            if rejected:
                text += "; permissions auto-rejected: " + ", ".join(rejected)
            b.add("system", subtype="done", text=text, time_s=time_s, line=line.number)
            continue
        if not isinstance(part, dict) and kind != "error":
            b.raw(line, obj, agent)
            continue
        if kind == "step_start":
            continue
        if kind == "text":
            # newer builds may write one text part as several `text` lines (deltas with the same part id)
            marker = ("text", to_str(part.get("id"))) if part.get("id") else ("text", line.number)
            if not b.append_text(agent, "assistant", to_str(part.get("text")), marker):
                b.add("assistant", agent, text=to_str(part.get("text")), time_s=time_s, line=line.number)
        elif kind == "reasoning":
            b.add("reasoning", agent, text=to_str(part.get("text")), time_s=time_s, line=line.number)
        elif kind == "tool_use":
            _tool(b, part, agent, line.number, time_s)
        elif kind == "step_finish":
            steps += 1
            b.usage(("step", steps), _tokens(part.get("tokens")), agent)
            step_cost = to_float(part.get("cost"))
            if step_cost is not None:
                cost = (cost or 0.0) + step_cost
            if agent is MAIN:
                last_reason = to_str(part.get("reason"))
        elif kind == "error":
            error = obj.get("error") if isinstance(obj.get("error"), dict) else part
            message = to_str(get(error, "data", "message") or get(error, "message") or get(error, "name"))
            b.add("error", agent, text=message or "error", time_s=time_s, line=line.number)
            if agent is MAIN:
                b.incomplete_reason, last_reason = f"error: {message}", "error"
        else:
            b.raw(line, obj, agent)
    b.cost_usd = cost
    b.complete = last_reason == "stop"
    if not b.complete and last_reason not in ("error",):
        b.incomplete_reason = "no final step (reason 'stop'): the run ended mid-step"
    return b.build()


def _tokens(tokens: Any) -> TokenUsage:
    """`step_finish.part.tokens` as `getUsage` (packages/opencode/src/session) writes it:
    `input` excludes cache reads and writes, `cache{read, write}`, `reasoning`, and since 1.x a
    `total`. Newer builds write `output` without the reasoning tokens; older ones wrote the
    provider's output, which includes them for OpenAI-style providers. Where `total` shows
    that reasoning is inside `output` (input + cache + output == total), it is taken out."""
    cache = get(tokens, "cache")
    fresh, read, write = count(tokens, "input"), count(cache, "read"), count(cache, "write")
    output, reasoning, total = count(tokens, "output"), count(tokens, "reasoning"), count(tokens, "total")
    if total is not None and output is not None and reasoning and output >= reasoning:
        base = (fresh or 0) + (read or 0) + (write or 0) + output
        if base == total:
            output -= reasoning
    return TokenUsage(fresh_input=fresh, cache_read=read, cache_write=write, output=output, reasoning=reasoning)


def _tool(b: Builder, part: dict, agent, line: int, time_s) -> None:
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    name, call_id = to_str(part.get("tool")), to_str(part.get("callID") or part.get("id"))
    tool_input, metadata = state.get("input"), state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
    start, end = to_time_s(get(state, "time", "start")), to_time_s(get(state, "time", "end"))
    b.call(
        call_id,
        name,
        tool_input,
        agent,
        changes=_changes(name, tool_input, metadata),
        time_s=start or time_s,
        line=line,
        subtype=to_str(state.get("title")),
    )
    status = to_str(state.get("status"))
    if status in ("completed", "error"):
        output = state.get("output") if status == "completed" else state.get("error")
        b.result(call_id, to_text(output), status == "error", end or time_s, agent=agent, line=line)
    if name == "task":
        child = to_str(metadata.get("sessionId") or metadata.get("sessionID"))
        args = tool_input if isinstance(tool_input, dict) else {}
        if child:
            b.spawn(
                child,
                call_id,
                agent_type=to_str(args.get("subagent_type")),
                description=to_str(args.get("description")),
                prompt=to_str(args.get("prompt")),
                parent_agent=agent,
            )
        else:
            spawned(b, call_id, args, agent)


def _changes(name: str, args: Any, metadata: dict) -> list[FileChange]:
    if not isinstance(args, dict):
        return []
    path = to_str(args.get("filePath"))
    filediff = metadata.get("filediff") if isinstance(metadata.get("filediff"), dict) else None
    if name in ("edit", "write") and path and filediff and isinstance(filediff.get("after"), str):
        before, after = to_str(filediff.get("before")), filediff["after"]
        diff = with_header(path, to_str(metadata.get("diff"))) or unified(before, after, path)
        return [
            FileChange(path, "edit" if name == "edit" else "write", diff, "tool", new_content=after, old_content=before)
        ]
    if name == "edit" and path:
        rebuilt = edit_change(
            path, to_str(args.get("oldString")), to_str(args.get("newString")), bool(args.get("replaceAll"))
        )
        recorded = with_header(path, to_str(metadata.get("diff")))
        return (
            [
                FileChange(
                    path, "edit", recorded, "tool", replacements=rebuilt.replacements, replace_all=rebuilt.replace_all
                )
            ]
            if recorded
            else [rebuilt]
        )
    if name == "write" and path:
        return [write_change(path, to_str(args.get("content")))]
    if name == "bash":
        return shell_writes(to_str(args.get("command")))
    return []
