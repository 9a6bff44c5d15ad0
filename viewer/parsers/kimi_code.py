"""Kimi Code wire records (the `agents/<agent>/wire.jsonl` of wire protocol 1.4 and later): flat
records `{type, time (ms), ...}` rather than the older `{timestamp, message{type, payload}}`.

  turn.prompt{input}            the user's prompt (a user `context.append_message` repeats it)
  context.append_message{message{role, origin{kind}, content}}
  context.append_loop_event{event}: step.begin{step, uuid}, content.part{part, stepUuid},
      tool.call{toolCallId, name, args}, tool.result{toolCallId, result{output, isError}},
      step.end{uuid, finishReason, usage{inputOther, output, inputCacheRead, inputCacheCreation}}
  usage.record{usageScope: turn|session, model, usage}   the same usage again: per turn, and a
      session-wide running total
  turn.ended{reason, error{message}}, turn.cancel, config.update{modelAlias, cwd},
  context.apply_compaction{summary}, context.clear

Usage counts once per step: each `step.end.usage` once (keyed by the step's uuid). The
`usage.record` lines repeat those numbers, so they count only when no step recorded usage (turn
records summed, else the last session record). Older loop events (`step.end.usage` with
snake_case keys, `tool.call.tool_call`) are read here too.
"""

from __future__ import annotations

from typing import Any

from ..builder import Builder
from ..coerce import as_dict, count, get, to_str, to_text
from ..model import TokenUsage, sum_usage
from .kimi_common import add_call

# Both spellings of Kimi's four usage counts: protocol 1.4 camelCase, the older snake_case.
_USAGE_KEYS = {
    "fresh_input": ("inputOther", "input_other"),
    "cache_read": ("inputCacheRead", "input_cache_read"),
    "cache_write": ("inputCacheCreation", "input_cache_creation"),
    "output": ("output",),
}
# Lifecycle records with nothing to show: counted on the thread's one quiet line, by label.
QUIET = {
    "permission.set_mode": "permission mode changes",
    "permission.record_approval_result": "permission approvals",
    "llm.request": "LLM requests",
    "turn.begin": "turn starts",
    "turn.started": "turn starts",
    "full_compaction.begin": "compaction starts",
}
# Record families all of whose members are bookkeeping (`tools.set_active_tools`, `tools.update`).
QUIET_PREFIXES = {"tools.": "tool-set updates", "permission.": "permission records", "llm.": "LLM records"}


def kimi_usage(usage: Any) -> TokenUsage | None:
    """Kimi's four counts (input_other already excludes cache reads and writes); None when the
    object holds none of the keys this viewer knows (a usage shape it does not understand)."""
    tokens = TokenUsage(**{field: count(usage, *keys) for field, keys in _USAGE_KEYS.items()})
    return tokens if tokens.recorded else None


class KimiCodeState:
    """What one file's records carry across lines: the current step, usage seen so far, and
    usage shapes that could not be read."""

    def __init__(self) -> None:
        self.step = 0
        self.step_anchor = ""  # the anchor of the current step's first event
        self.step_usage = False
        self.turn_usage: list[TokenUsage] = []
        self.session_usage: TokenUsage | None = None
        self.unread_usage = 0
        self.saw_prompt = False
        self.ended_with_error = ""
        self.ended_ok = False  # the last turn record was a turn.ended without error
        self.trigger_text = ""  # a subagent file's first system_trigger message: its prompt


def handle(b: Builder, obj: dict, state: KimiCodeState, agent, line: int, time_s) -> bool:
    """Handle one flat record; False when its type is not one of Kimi Code's."""
    kind = to_str(obj.get("type"))
    if kind in ("turn.prompt", "turn.steer", "context.append_loop_event") and agent is None:
        state.ended_ok = False  # a new turn or step has begun since the last turn.ended
    if kind == "context.append_loop_event":
        event = obj.get("event") if isinstance(obj.get("event"), dict) else get(obj, "payload", "event")
        _loop_event(b, as_dict(event), state, agent, line, time_s)
    elif kind in ("turn.prompt", "turn.steer"):
        state.saw_prompt = True
        text = to_text(obj.get("input") if obj.get("input") is not None else obj.get("message"))
        b.add("user", agent, text=text, subtype="steer" if kind == "turn.steer" else "", time_s=time_s, line=line)
    elif kind == "context.append_message":
        _message(b, as_dict(obj.get("message")), state, agent, line, time_s)
    elif kind == "usage.record":
        _usage_record(b, obj, state)
    elif kind == "turn.ended":
        message = to_str(get(obj, "error", "message"))
        reason = to_str(obj.get("reason"))
        if message or reason in ("failed", "error"):
            state.ended_with_error = f"turn ended: {reason or 'error'}" + (f": {message}" if message else "")
            b.add("error", agent, subtype="turn ended", text=state.ended_with_error, time_s=time_s, line=line)
        elif agent is None:
            state.ended_ok, state.ended_with_error = True, ""
    elif kind == "turn.cancel":
        b.add("error", agent, subtype="cancelled", text="Turn cancelled", time_s=time_s, line=line)
        state.ended_with_error = "turn cancelled"
    elif kind == "config.update":
        b.model = b.model or to_str(obj.get("modelAlias") or obj.get("model"))
        b.cwd = b.cwd or to_str(obj.get("cwd"))
    elif kind == "context.apply_compaction":
        text = "Context compaction" + (f"\n\n{to_str(obj.get('summary'))}" if obj.get("summary") else "")
        b.add("system", agent, subtype="compaction", text=text, time_s=time_s, line=line)
    elif kind == "context.clear":
        b.add("system", agent, subtype="context cleared", text="Context cleared", time_s=time_s, line=line)
    elif kind == "full_compaction.complete":
        summary = to_str(obj.get("summary") or get(obj, "result", "summary"))
        b.add(
            "system",
            agent,
            subtype="compaction",
            text="Context compacted" + (f"\n\n{summary}" if summary else ""),
            time_s=time_s,
            line=line,
        )
    elif kind.startswith("plan_mode."):
        state_word = kind.split(".", 1)[1].replace("_", " ")
        b.add("system", agent, subtype="plan mode", text=f"Plan mode: {state_word}", time_s=time_s, line=line)
    elif kind in QUIET:
        b.quiet(QUIET[kind], agent)
    elif kind.startswith(tuple(QUIET_PREFIXES)):
        b.quiet(next(label for prefix, label in QUIET_PREFIXES.items() if kind.startswith(prefix)), agent)
    else:
        return False
    return True


def _loop_event(b: Builder, event: dict, state: KimiCodeState, agent, line: int, time_s) -> None:
    kind = to_str(event.get("type"))
    if kind == "step.begin":
        state.step += 1
        state.step_anchor = b.next_anchor()
    elif kind == "content.part":
        part = as_dict(event.get("part")) or event
        is_think = part.get("type") in ("think", "thinking")
        text = to_str(part.get("think") if is_think else part.get("text"))
        event_kind = "reasoning" if is_think else "assistant"
        if not b.append_text(agent, event_kind, text, (agent, state.step)):
            b.add(event_kind, agent, text=text, time_s=time_s, line=line)
    elif kind == "tool.call":
        call = event.get("tool_call") if isinstance(event.get("tool_call"), dict) else event
        if "toolCallId" in call:  # protocol 1.4: {toolCallId, name, args}
            call = {"id": call.get("toolCallId"), "name": call.get("name"), "arguments": call.get("args")}
        add_call(b, call, agent, line, time_s)
    elif kind == "tool.result":
        result = as_dict(event.get("result") or event.get("return_value"))
        output = result.get("output")
        if not output and result.get("message"):
            output = result.get("message")
        is_error = bool(result.get("isError", result.get("is_error")))
        tool_id = to_str(event.get("toolCallId") or event.get("tool_call_id"))
        b.result(tool_id, to_text(output), is_error, time_s, agent=agent, line=line)
    elif kind == "step.end":
        usage = event.get("usage")
        if isinstance(usage, dict):
            tokens = kimi_usage(usage)
            if tokens is None:
                state.unread_usage += 1
                return
            state.step_usage = True
            key = ("step", agent, to_str(event.get("uuid")) or f"n{state.step}:{line}")
            anchor = state.step_anchor if state.step_anchor and b.has_anchor(state.step_anchor) else None
            b.usage(key, tokens, agent, anchor)
    elif kind in ("step.interrupted", "step.retry"):
        text = to_str(event.get("reason") or event.get("error_type")) or kind
        b.add("error", agent, subtype=kind, text=text, time_s=time_s, line=line)
    else:
        b.raw(line, event, agent, why=f"unknown loop event {kind!r}")


def _message(b: Builder, message: dict, state: KimiCodeState, agent, line: int, time_s) -> None:
    role, origin = to_str(message.get("role")), to_str(get(message, "origin", "kind"))
    text = to_text(message.get("content"))
    if origin == "system_trigger" and not state.trigger_text:
        state.trigger_text = text
    if role == "user" and origin in ("user", "") and state.saw_prompt:
        return  # the turn.prompt record already showed it
    if role == "user" and origin in ("user", ""):
        b.add("user", agent, text=text, time_s=time_s, line=line)
    elif role == "assistant":
        b.add("assistant", agent, text=text, subtype=origin, time_s=time_s, line=line)
    elif role == "tool":
        b.result(to_str(message.get("toolCallId")), text, bool(message.get("isError")), time_s, agent=agent, line=line)
    else:  # system prompts, injected reminders, subagent triggers
        b.add("system", agent, text=text, subtype=origin or role, time_s=time_s, line=line)


def _usage_record(b: Builder, obj: dict, state: KimiCodeState) -> None:
    b.model = b.model or to_str(obj.get("model"))
    usage = obj.get("usage")
    if not isinstance(usage, dict):
        return
    tokens = kimi_usage(usage)
    if tokens is None:
        state.unread_usage += 1
    elif obj.get("usageScope") == "session":
        state.session_usage = tokens  # a running total: the last one stands
    else:
        state.turn_usage.append(tokens)


def settle_usage(b: Builder, state: KimiCodeState) -> None:
    """Step usage when any step recorded it; else the turn records; else the session total."""
    if state.step_usage:
        return
    if state.turn_usage:
        b.stated_tokens = sum_usage(state.turn_usage)
    elif state.session_usage is not None:
        b.stated_tokens = state.session_usage
