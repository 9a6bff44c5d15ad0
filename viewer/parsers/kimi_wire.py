"""Kimi CLI session `wire.jsonl`, both generations:

- the envelope records `{timestamp, message{type, payload}}` (wire protocol 1.1 to 1.10 of the
  Python CLI): TurnBegin, StepBegin, ContentPart, ToolCall, ToolResult, StatusUpdate{token_usage},
  SubagentEvent (a subagent's record wrapped with the id of the Task call that started it; wrapped
  records may wrap again);
- Kimi Code's flat records (protocol 1.4 of `agents/<agent>/wire.jsonl`, see kimi_code.py),
  whose subagents write their own `agents/<agent>/wire.jsonl` beside the main one.

The first line `{"type": "metadata", "protocol_version": ...}` names the protocol; a major
version this viewer does not know is named on the page, and usage it cannot read is reported as
not understood rather than counted as zero. Text streams in parts and is joined per step.
`StatusUpdate.token_usage` and `step.end.usage` are one step's usage each: summed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import MAIN, Builder
from ..coerce import to_str, to_text, to_time_s
from ..model import Transcript
from ..versions import note_version
from . import kimi_code
from .kimi_common import add_call
from .records import records

FORMAT, HARNESS = "kimi-wire", "Kimi CLI"
KNOWN_MAJORS = ("1",)
_LOOP_NAMES = {
    "step.begin": "StepBegin",
    "content.part": "ContentPart",
    "tool.call": "ToolCall",
    "tool.result": "ToolResult",
    "step.end": "StatusUpdate",
    "turn.begin": "TurnBegin",
}
# Structure the other records already show (step and turn bounds, streamed call parts).
_QUIET = {"StepBegin", "TurnEnd", "ToolCallPart", "CompactionEnd", "metadata"}
# Bookkeeping a reader may want counted, not carded: counted on the thread's quiet line.
_COUNTED = {
    "ApprovalRequest": "permission requests",
    "ApprovalResponse": "permission approvals",
    "ApprovalRequestResolved": "permission approvals",
}


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    state = kimi_code.KimiCodeState()
    _parse_file(b, path, MAIN, state)
    for sibling in _subagent_files(path):
        key = sibling.parent.name
        b.spawn(key, agent_type="subagent", description=f"agents/{key}")
        child = kimi_code.KimiCodeState()
        _parse_file(b, sibling, key, child)
        _merge_child_usage(state, child)
        # The file names no spawning call: pair it with the unclaimed Agent/Task call whose prompt
        # its first system-triggered message repeats.
        prompt = child.trigger_text.strip()
        parent = b.find_tool(lambda e, prompt=prompt: _spawned_with(b, e, prompt))
        if parent and child.trigger_text:
            b.spawn(key, parent_tool_id=parent)
    kimi_code.settle_usage(b, state)
    if state.unread_usage:
        label = f"kimi wire protocol {b.format_version}" if b.format_version else "kimi wire"
        b.warnings.append(
            f"{label}: usage not understood ({state.unread_usage} usage record(s) with none of the fields "
            "inputOther, inputCacheRead, inputCacheCreation, output); token counts are not recorded here"
        )
        b.usage_not_understood = True
    b.judge_by_last_event("no end of turn recorded, or the last step did not finish with an answer")
    if state.ended_ok:  # Kimi Code says the turn completed; later raw records do not undo that
        b.complete = not any(e.kind == "tool" and e.result is None for e in b.thread())
    if state.ended_with_error:
        b.complete, b.incomplete_reason = False, state.ended_with_error
    return b.build()


def _spawned_with(b: Builder, event, prompt: str) -> bool:
    args = event.tool_input if isinstance(event.tool_input, dict) else {}
    return (
        event.tool_name in ("Agent", "Task")
        and not b.is_claimed(event.tool_id)
        and to_str(args.get("prompt")).strip() == prompt
    )


def _merge_child_usage(state: kimi_code.KimiCodeState, child: kimi_code.KimiCodeState) -> None:
    state.step_usage = state.step_usage or child.step_usage
    state.turn_usage += child.turn_usage
    state.unread_usage += child.unread_usage


def _subagent_files(path: Path) -> list[Path]:
    """Kimi Code keeps each agent's records in agents/<agent>/wire.jsonl; the main one reads the rest."""
    if path.parent.name != "main" or path.parent.parent.name != "agents":
        return []
    return sorted(p for p in path.parent.parent.glob("*/wire.jsonl") if p.parent.name != "main")


def _parse_file(b: Builder, path: Path, agent, state: kimi_code.KimiCodeState) -> None:
    counter = {"step": 0}
    for line, obj in records(b, path, agent):
        time_s = to_time_s(obj.get("timestamp") if obj.get("timestamp") is not None else obj.get("time"))
        if obj.get("type") == "metadata" or "protocol_version" in obj:
            if agent is MAIN:
                note_version(b, "kimi wire protocol", to_str(obj.get("protocol_version")), KNOWN_MAJORS)
            continue
        kind, payload = _envelope(obj)
        if kind is not None:
            _handle(b, kind, payload, agent, line, time_s, counter)
        elif not kimi_code.handle(b, obj, state, agent, line.number, time_s):
            b.raw(line, obj, agent)


def _envelope(obj: dict) -> tuple[str | None, Any]:
    message = obj.get("message")
    if isinstance(message, dict) and isinstance(message.get("type"), str) and message["type"]:
        return to_str(message["type"]), message.get("payload")
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
            tokens = kimi_code.kimi_usage(usage)
            if tokens is not None:
                counter["usage"] = counter.get("usage", 0) + 1
                b.usage(("status", agent, counter["usage"]), tokens, agent)
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
    elif kind in _COUNTED:
        b.quiet(_COUNTED[kind], agent)
    else:
        b.raw(line, {"type": kind, "payload": payload}, agent, why=f"unknown wire message {kind!r}")
