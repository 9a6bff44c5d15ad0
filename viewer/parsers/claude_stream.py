"""Claude Code `-p --output-format stream-json --verbose` output.

Subagent messages carry `parent_tool_use_id` (the spawning Task call's id); that id is the
subagent's key, so parallel subagents that interleave still land under their own call. The
final `result` line's usage and cost are authoritative for the run totals.
"""

from __future__ import annotations

from pathlib import Path

from ..builder import MAIN, Builder
from ..coerce import get, to_float, to_int, to_str
from ..model import TokenUsage, Transcript
from ..versions import CLAUDE_CODE_CHECKED, note_checked_range
from .claude_common import add_compaction, add_message, usage_of
from .records import records, type_and_time

FORMAT, HARNESS = "claude-stream", "Claude Code"

_RESULT_REASONS = {
    "error_max_turns": "budget hit: maximum number of turns reached",
    "error_max_budget_usd": "budget hit: maximum cost reached",
    "error_during_execution": "the run stopped with an error during execution",
}


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    for line, obj in records(b, path):
        kind, time_s = type_and_time(obj)
        agent = to_str(obj.get("parent_tool_use_id")) or None
        if kind == "system":
            _system(b, obj, line.number, time_s)
        elif kind in ("assistant", "user"):
            message = obj.get("message")
            add_message(
                b, message, kind, agent, line=line.number, time_s=time_s, tool_result=obj.get("tool_use_result")
            )
            if kind == "assistant" and isinstance(get(message, "usage"), dict):
                first = _first_anchor_of(b, agent, line.number)
                key = (to_str(get(message, "id")) or f"line{line.number}", to_str(obj.get("requestId")))
                b.usage(key, usage_of(message["usage"]), agent, first)
                if not b.model and get(message, "model"):
                    b.model = to_str(message["model"])
        elif kind == "result":
            _result(b, obj, line.number, time_s)
        else:
            b.raw(line, obj, agent)
    return b.build()


def _first_anchor_of(b: Builder, agent: str | None, line_number: int) -> str | None:
    """The first event this line added: the per-turn badge goes on it."""
    last = b.last_event(agent)
    return last.anchor if last and last.line == line_number else None


def _system(b: Builder, obj: dict, line: int, time_s: float | None) -> None:
    subtype = to_str(obj.get("subtype"))
    if subtype == "init":
        b.session_id = to_str(obj.get("session_id")) or b.session_id
        b.cwd = to_str(obj.get("cwd")) or b.cwd
        b.model = to_str(obj.get("model")) or b.model
        b.effort = to_str(obj.get("effort") or obj.get("reasoning_effort")) or b.effort
        version = to_str(obj.get("claude_code_version"))
        note_checked_range(b, "Claude Code", version, *CLAUDE_CODE_CHECKED)
        tools = obj.get("tools") if isinstance(obj.get("tools"), list) else []
        b.add(
            "system",
            subtype="init",
            time_s=time_s,
            line=line,
            text=f"Session started (Claude Code {version or '?'}), model {b.model or '?'}, "
            f"{len(tools)} tools, permission mode {to_str(obj.get('permissionMode')) or '?'}",
        )
    elif subtype == "task_started":
        tool_id = to_str(obj.get("tool_use_id"))
        b.spawn(
            tool_id or to_str(obj.get("task_id")) or None,
            tool_id,
            agent_type=to_str(obj.get("subagent_type")),
            description=to_str(obj.get("description")),
        )
    elif subtype == "task_notification":
        tool_id = to_str(obj.get("tool_use_id")) or None
        b.add(
            "system",
            tool_id,
            subtype="task_notification",
            time_s=time_s,
            line=line,
            text=f"Subagent {to_str(obj.get('status')) or 'finished'}: {to_str(obj.get('summary'))}",
        )
    elif subtype == "task_progress":
        return  # progress ticks repeat what the subagent's own messages show
    elif subtype == "compact_boundary":
        meta = obj.get("compact_metadata") if isinstance(obj.get("compact_metadata"), dict) else {}
        add_compaction(b, MAIN, line, time_s, to_str(meta.get("trigger")), to_int(meta.get("pre_tokens")))
    else:
        b.raw(line, obj, why=f"system record {subtype!r}")


def _result(b: Builder, obj: dict, line: int, time_s: float | None) -> None:
    subtype = to_str(obj.get("subtype"))
    b.complete = subtype == "success" and not obj.get("is_error")
    b.incomplete_reason = _RESULT_REASONS.get(subtype, f"the run ended with {subtype or 'an error'}")
    duration_ms = to_float(obj.get("duration_ms"))
    if duration_ms is not None:
        b.duration_s = (b.duration_s or 0.0) + duration_ms / 1000
    if obj.get("num_turns") is not None:
        b.stated_turns = (b.stated_turns or 0) + to_int(obj.get("num_turns"))
    # One file may hold several runs (`--resume` appends): each `result` states its own run's
    # usage and cost, so the file's totals are their sums.
    cost = to_float(obj.get("total_cost_usd"))
    if cost is not None:
        b.cost_usd = (b.cost_usd or 0.0) + cost
    if isinstance(obj.get("usage"), dict):
        b.stated_tokens = usage_of(obj["usage"]) + (b.stated_tokens or TokenUsage())
    text = f"Run finished: {subtype or '?'}"
    if obj.get("is_error") and obj.get("result"):
        text += f"\n{to_str(obj.get('result'))}"
    b.add("error" if obj.get("is_error") else "system", subtype="result", text=text, time_s=time_s, line=line)
