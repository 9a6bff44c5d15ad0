"""Kimi CLI session `wire.jsonl`: `{timestamp, message{type, payload}}` records, and the newer
`context.append_loop_event` records (`event{type: step.begin|content.part|tool.call|tool.result|
step.end}`), which are mapped onto the older names here.

Text streams in parts and is joined per step. `StatusUpdate.token_usage` (and `step.end.usage`)
is one step's usage: summed. `SubagentEvent` wraps a subagent's records with the id of the Task
call that started it; wrapped records may wrap again (nested subagents).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import MAIN, Builder
from ..coerce import get, to_int, to_str, to_text, to_time_s
from ..jsonl import iter_lines
from ..model import TokenUsage, Transcript
from .kimi_common import add_call

FORMAT, HARNESS = "kimi-wire", "Kimi CLI"
_LOOP_NAMES = {
    "step.begin": "StepBegin",
    "content.part": "ContentPart",
    "tool.call": "ToolCall",
    "tool.result": "ToolResult",
    "step.end": "StatusUpdate",
    "turn.begin": "TurnBegin",
}
_QUIET = {
    "StepBegin",
    "TurnEnd",
    "ToolCallPart",
    "ApprovalRequest",
    "ApprovalResponse",
    "ApprovalRequestResolved",
    "CompactionEnd",
    "metadata",
}


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    counter = {"step": 0}
    for line in iter_lines(path):
        obj = line.obj
        if obj is None:
            b.raw(line)
            continue
        time_s = to_time_s(obj.get("timestamp"))
        kind, payload = _record(obj)
        if kind is None:
            if obj.get("type") == "metadata" or "protocol_version" in obj:
                continue
            b.raw(line, obj)
            continue
        _handle(b, kind, payload, MAIN, line, time_s, counter)
    b.judge_by_last_event("no end of turn recorded, or the last step did not finish with an answer")
    return b.build()


def _record(obj: dict) -> tuple[str | None, Any]:
    message = obj.get("message")
    if isinstance(message, dict) and isinstance(message.get("type"), str) and message["type"]:
        return to_str(message["type"]), message.get("payload")
    if obj.get("type") == "context.append_loop_event":
        event = obj.get("event") if isinstance(obj.get("event"), dict) else get(obj, "payload", "event")
        if isinstance(event, dict):
            name = to_str(event.get("type"))
            return _LOOP_NAMES.get(name, name), event
    return None, None


def _handle(b: Builder, kind: str, payload: Any, agent, line, time_s, counter: dict) -> None:
    data = payload if isinstance(payload, dict) else {}
    if kind == "TurnBegin":
        b.add("user", agent, text=to_text(data.get("user_input")), time_s=time_s, line=line.number)
    elif kind == "StepBegin":
        counter["step"] += 1
    elif kind == "ContentPart":
        part = data.get("part") if isinstance(data.get("part"), dict) else data
        is_think = part.get("type") == "think"
        text = to_str(part.get("think") if is_think else part.get("text"))
        event_kind = "reasoning" if is_think else "assistant"
        if not b.append_text(agent, event_kind, text, (agent, counter["step"])):
            b.add(event_kind, agent, text=text, time_s=time_s, line=line.number)
    elif kind == "ToolCall":
        add_call(
            b, data.get("tool_call") if isinstance(data.get("tool_call"), dict) else data, agent, line.number, time_s
        )
    elif kind == "ToolResult":
        value = data.get("return_value") if isinstance(data.get("return_value"), dict) else data
        output = value.get("output")
        if not output and value.get("message"):
            output = value.get("message")
        b.result(
            to_str(data.get("tool_call_id")),
            to_text(output),
            bool(value.get("is_error")),
            time_s,
            agent=agent,
            line=line.number,
        )
    elif kind == "StatusUpdate":
        usage = data.get("token_usage") if isinstance(data.get("token_usage"), dict) else data.get("usage")
        if isinstance(usage, dict):
            counter["usage"] = counter.get("usage", 0) + 1
            b.usage(
                ("step", counter["usage"]),
                TokenUsage(
                    fresh_input=to_int(usage.get("input_other")),
                    cache_read=to_int(usage.get("input_cache_read")),
                    cache_write=to_int(usage.get("input_cache_creation")),
                    output=to_int(usage.get("output")),
                ),
                agent,
            )
    elif kind == "SubagentEvent":
        child = to_str(data.get("task_tool_call_id") or data.get("parent_tool_call_id"))
        inner = data.get("event")
        if child and isinstance(inner, dict):
            b.spawn(child, child, parent_agent=agent)
            inner_kind = to_str(inner.get("type"))
            _handle(
                b, _LOOP_NAMES.get(inner_kind, inner_kind), inner.get("payload", inner), child, line, time_s, counter
            )
        else:
            b.raw(line, payload, agent, why="subagent event without a task call id")
    elif kind == "StepInterrupted":
        b.add("error", agent, subtype="interrupted", text="Step interrupted", time_s=time_s, line=line.number)
    elif kind == "CompactionBegin":
        b.add("system", agent, subtype="compaction", text="Context compaction", time_s=time_s, line=line.number)
    elif kind in _QUIET:
        return
    else:
        b.raw(line, {"type": kind, "payload": payload}, agent, why=f"unknown wire message {kind!r}")
