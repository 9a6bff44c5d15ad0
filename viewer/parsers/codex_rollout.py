"""OpenAI Codex CLI rollout files (`rollout-<ts>-<uuid>.jsonl`: `{timestamp, type, payload}`).

Response items are rendered; the `event_msg` copies of the same messages are skipped. Tokens come
from the last `token_count.info.total_token_usage` (the record is written twice per update, so
summing `last_token_usage` would double count); per-turn badges are the deltas between totals.
Codex counts cached tokens inside `input_tokens` and reasoning inside `output_tokens`: both are
split out here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import MAIN, Builder
from ..coerce import (
    as_list,
    clip,
    count,
    get,
    minus,
    parse_args,
    to_str,
    to_text,
    to_time_s,
)
from ..edits import command_text, parse_apply_patch, shell_writes, with_header
from ..jsonl import iter_lines
from ..model import FileChange, TokenUsage, Transcript
from ..versions import CODEX_CHECKED, note_checked_range
from .records import records, type_and_time

FORMAT, HARNESS = "codex-rollout", "Codex CLI"

_RESPONSE_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
}
# event_msg records that repeat response items or only mark progress.
_QUIET_EVENTS = {
    "user_message",
    "agent_message",
    "agent_reasoning",
    "agent_reasoning_raw_content",
    "exec_command_begin",
    "exec_command_output_delta",
    "patch_apply_begin",
    "agent_message_delta",
    "agent_reasoning_delta",
    "collab_agent_spawn_begin",
    "mcp_tool_call_begin",
    "mcp_tool_call_end",
    "item_started",
    "item_completed",
    "web_search_end",  # the web_search_call response item says the same
}
# event_msg kinds are those of `EventMsg` in openai/codex codex-rs/protocol/src/protocol.rs (serde
# snake_case), read through the code index for issue 35.
# event_msg records a reader gains nothing from as cards: counted on the thread's one quiet line.
_BOOKKEEPING_EVENTS = {
    "session_configured",
    "mcp_startup_update",
    "mcp_startup_complete",
    "get_history_entry_response",
    "mcp_list_tools_response",
    "list_custom_prompts_response",
    "list_skills_response",
    "turn_diff",
    "shutdown_complete",
    "undo_started",
    "agent_reasoning_section_break",
    "raw_response_item",
    "reasoning_content_delta",
    "reasoning_raw_content_delta",
    "agent_message_content_delta",
    "plan_delta",
    "terminal_interaction",
    "exec_approval_request",
    "apply_patch_approval_request",
    "elicitation_request",
    "background_event",
    "web_search_begin",
    "collab_agent_interaction_begin",
    "collab_agent_interaction_end",
    "collab_waiting_begin",
    "collab_waiting_end",
    "collab_close_begin",
    "collab_close_end",
    "dynamic_tool_call_request",
    "thread_name_updated",
    "rate_limits",
    "image_generation_begin",
    "request_permissions",
    "dynamic_tool_call_response",
    "guardian_assessment",
    "patch_apply_updated",
    "hook_started",
    "hook_completed",
    "collab_resume_begin",
    "collab_resume_end",
    "thread_settings_applied",
    "realtime_conversation_started",
    "realtime_conversation_realtime",
    "realtime_conversation_closed",
    "realtime_conversation_sdp",
    "realtime_conversation_list_voices_response",
}
# event_msg records shown as a one-line system card: kind -> how the line starts.
_NOTE_EVENTS = {
    "context_compacted": "Context compacted",
    "entered_review_mode": "Entered review mode",
    "exited_review_mode": "Exited review mode",
    "undo_completed": "Undo",
    "warning": "Warning",
    "deprecation_notice": "Deprecation notice",
    "model_reroute": "Model rerouted",
    "request_user_input": "Asked the user",
    "view_image_tool_call": "Viewed an image",
    "thread_rolled_back": "Thread rolled back",
    "guardian_warning": "Approval reviewer warning",
    "model_verification": "Account verification recommended",
    "thread_goal_updated": "Goal updated",
    "image_generation_end": "Generated an image",
}
_TASK_START, _TASK_END = ("task_started", "turn_started"), ("task_complete", "turn_complete")
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions")


def codex_usage(usage: Any) -> TokenUsage:
    """OpenAI usage: input includes cached input, output includes reasoning; there are no cache
    writes (cache_write stays None), and reasoning is None where the record has no such key."""
    cached, reasoning = count(usage, "cached_input_tokens"), count(usage, "reasoning_output_tokens")
    return TokenUsage(
        fresh_input=minus(count(usage, "input_tokens"), cached),
        cache_read=cached,
        output=minus(count(usage, "output_tokens"), reasoning),
        reasoning=reasoning,
    )


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    state = {"total": TokenUsage(), "updates": 0, "open_task": False, "saw_task": False}
    _parse_file(b, path, MAIN, state)
    _attach_child_rollouts(b, path)
    if not b.spawn_keys():  # with collab children the run total is the sum of every thread's
        b.stated_tokens = state["total"]
    if state["saw_task"] and not state["open_task"] and not b.incomplete_reason.startswith("turn aborted"):
        b.complete = True
    return b.build()


def _parse_file(b: Builder, path: Path, agent: str | None, state: dict) -> None:
    for line, obj in records(b, path, agent):
        kind, time_s = type_and_time(obj)
        payload = obj.get("payload")
        if payload is None and kind in _RESPONSE_TYPES:  # early versions: bare response items
            kind, payload = "response_item", obj
        if not isinstance(payload, dict):
            if "instructions" in obj and obj.get("id"):  # early versions' first line
                b.session_id = b.session_id or to_str(obj.get("id"))
                continue
            if obj.get("record_type") == "state":
                continue
            b.raw(line, obj, agent)
            continue
        if kind == "session_meta":
            if agent is MAIN:
                note_checked_range(b, "Codex CLI", to_str(payload.get("cli_version")), *CODEX_CHECKED)
                b.session_id = to_str(payload.get("id")) or b.session_id
                b.cwd = to_str(payload.get("cwd")) or b.cwd
                b.started_at = to_time_s(payload.get("timestamp")) or b.started_at
            b.add(
                "system",
                agent,
                subtype="session",
                time_s=time_s,
                line=line.number,
                text=f"Session {to_str(payload.get('id'))} ({to_str(payload.get('originator'))} "
                f"{to_str(payload.get('cli_version'))}), provider {to_str(payload.get('model_provider')) or '?'}",
            )
        elif kind == "turn_context":
            if agent is MAIN:
                b.model = to_str(payload.get("model")) or b.model
                b.effort = to_str(payload.get("effort") or payload.get("reasoning_effort")) or b.effort
                b.cwd = b.cwd or to_str(payload.get("cwd"))
        elif kind == "response_item":
            _response_item(b, payload, agent, line.number, time_s)
        elif kind == "event_msg":
            _event_msg(b, payload, agent, line, time_s, state)
        elif kind == "compacted":
            b.add(
                "system",
                agent,
                subtype="compaction",
                time_s=time_s,
                line=line.number,
                text="Context compacted.\n" + clip(to_str(payload.get("message")), 4000),
            )
        else:
            b.raw(line, obj, agent)


def _response_item(b: Builder, item: dict, agent, line: int, time_s) -> None:
    kind = to_str(item.get("type"))
    if kind == "message":
        role, text = to_str(item.get("role")), to_text(item.get("content"))
        if role == "assistant":
            b.add("assistant", agent, text=text, time_s=time_s, line=line)
        elif role == "developer" or text.lstrip().startswith(_INJECTED):
            b.add("system", agent, subtype="context", text=text, time_s=time_s, line=line)
        else:
            b.add("user", agent, text=text, time_s=time_s, line=line)
    elif kind == "reasoning":
        summary = "\n\n".join(to_str(get(s, "text")) for s in as_list(item.get("summary")) if isinstance(s, dict))
        b.add(
            "reasoning",
            agent,
            time_s=time_s,
            line=line,
            text=summary or ("(reasoning encrypted)" if item.get("encrypted_content") else "(no reasoning summary)"),
        )
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        name = to_str(item.get("name")) or kind
        args = parse_args(item.get("arguments")) if kind == "function_call" else item.get("input", item.get("action"))
        b.call(
            to_str(item.get("call_id") or item.get("id")),
            name,
            args,
            agent,
            changes=_changes_from_call(name, args),
            time_s=time_s,
            line=line,
        )
    elif kind in ("function_call_output", "custom_tool_call_output"):
        output, is_error, duration_s = _output(item.get("output"))
        b.result(to_str(item.get("call_id")), output, is_error, time_s, agent=agent, line=line, duration_s=duration_s)
    elif kind == "web_search_call":
        _web_search(b, item, agent, line, time_s)
    elif kind == "ghost_snapshot":
        b.quiet("git snapshots (undo points)", agent)
    elif kind in ("compaction", "compaction_summary"):
        b.add(
            "system",
            agent,
            subtype="compaction",
            text="Context compacted (summary encrypted)",
            time_s=time_s,
            line=line,
        )
    else:
        b.raw(line, item, agent, why=f"unknown response item {to_str(kind)!r}")


def _web_search(b: Builder, item: dict, agent, line: int, time_s) -> None:
    """A web search is one item with its status; a completed one has its answer in the model's
    next message, so it is shown as answered (0.104 rollouts write no id and no separate result)."""
    action = item.get("action") if isinstance(item.get("action"), dict) else {}
    tool_id = to_str(item.get("id") or item.get("call_id")) or f"web_search:{line}"
    b.call(tool_id, "web_search", action or item.get("action"), agent, time_s=time_s, line=line)
    status = to_str(item.get("status"))
    if status in ("completed", "failed"):
        query = to_str(action.get("query") or action.get("url") or action.get("pattern"))
        text = f"search {status}" + (f": {query}" if query else "")
        b.result(tool_id, text, status == "failed", time_s, agent=agent, line=line)
        b.update_tool(tool_id, duration_s=None)  # one record: no duration is recorded


def _changes_from_call(name: str, args: Any) -> list[FileChange]:
    if name == "apply_patch":
        return parse_apply_patch(to_str(args.get("input") if isinstance(args, dict) else args))
    if isinstance(args, dict) and name in ("shell", "exec_command", "local_shell", "container.exec"):
        return shell_writes(command_text(args.get("command") or args.get("cmd")))
    return []


def _output(value: Any) -> tuple[str, bool, float | None]:
    """Outputs are plain text or a JSON string `{output, metadata{exit_code, duration_seconds}}`;
    the recorded duration beats the timestamps (several records share one second)."""
    parsed = parse_args(value)
    if isinstance(parsed, dict) and "output" in parsed:
        code = get(parsed, "metadata", "exit_code")
        seconds = get(parsed, "metadata", "duration_seconds")
        duration_s = float(seconds) if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None
        return to_text(parsed.get("output")), isinstance(code, int) and code != 0, duration_s
    return to_text(value), False, None


def _duration_of(event: dict) -> float | None:
    """`exec_command_end.duration`: `{secs, nanos}` (Rust's Duration) or a number of seconds."""
    value = event.get("duration")
    if isinstance(value, dict) and isinstance(value.get("secs"), (int, float)):
        return value["secs"] + (value.get("nanos") or 0) / 1e9
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _note_text(kind: str, event: dict) -> str:
    detail = next(
        (
            to_str(event.get(key))
            for key in (
                "message",
                "reason",
                "query",
                "path",
                "to_model",
                "question",
                "summary",
                "goal",
                "saved_path",
                "revised_prompt",
            )
            if event.get(key)
        ),
        "",
    )
    if kind == "thread_rolled_back" and event.get("num_turns") is not None:
        detail = f"{event.get('num_turns')} turn(s)"
    if kind == "request_user_input" and not detail:
        detail = to_text(event.get("questions"))[:500]
    return _NOTE_EVENTS[kind] + (f": {detail}" if detail else "")


def _plan(b: Builder, event: dict, agent, line: int, time_s) -> None:
    steps = [
        {"content": to_str(get(step, "step")), "status": to_str(get(step, "status")) or "pending"}
        for step in as_list(event.get("plan"))
        if isinstance(step, dict)
    ]
    b.add(
        "system",
        agent,
        subtype="plan",
        text=to_str(event.get("explanation")),
        tool_input={"todos": steps},
        time_s=time_s,
        line=line,
    )


def _event_msg(b: Builder, event: dict, agent, line, time_s, state: dict) -> None:
    kind = to_str(event.get("type"))
    if kind == "token_count":
        total = get(event, "info", "total_token_usage")
        if isinstance(total, dict):
            tokens = codex_usage(total)
            if agent is MAIN and tokens != state["total"]:
                previous, state["total"] = state["total"], tokens
                state["updates"] += 1
                delta = TokenUsage(*(minus(now, before) for now, before in zip(tokens.counts(), previous.counts())))
                b.usage(("token_count", state["updates"]), delta, agent)
            elif agent is not MAIN:
                b.usage(("child", agent), tokens, agent)  # a child's latest total replaces its earlier one
    elif kind in _TASK_START and agent is MAIN:
        state["open_task"], state["saw_task"] = True, True
    elif kind in _TASK_END and agent is MAIN:
        state["open_task"] = False
    elif kind == "turn_aborted":
        b.add(
            "error",
            agent,
            subtype="turn_aborted",
            time_s=time_s,
            line=line.number,
            text=f"Turn aborted: {to_str(event.get('reason')) or 'interrupted'}",
        )
        if agent is MAIN:
            b.incomplete_reason = f"turn aborted ({to_str(event.get('reason')) or 'interrupted'})"
            state["open_task"] = True
    elif kind == "exec_command_end":
        code, duration_s = event.get("exit_code"), _duration_of(event)
        if isinstance(code, int) and code != 0:
            b.update_tool(to_str(event.get("call_id")), is_error=True)
        if duration_s is not None and b.tool_event(to_str(event.get("call_id"))) is not None:
            b.update_tool(to_str(event.get("call_id")), duration_s=duration_s)
    elif kind == "plan_update":
        _plan(b, event, agent, line.number, time_s)
    elif kind in _NOTE_EVENTS:
        b.add(
            "system",
            agent,
            subtype=kind.replace("_", " "),
            text=_note_text(kind, event),
            time_s=time_s,
            line=line.number,
        )
    elif kind in _BOOKKEEPING_EVENTS:
        b.quiet(kind.replace("_", " ") + " records", agent)
    elif kind == "patch_apply_end":
        _patch_applied(b, event)
    elif kind in ("error", "stream_error"):
        b.add("error", agent, subtype=kind, time_s=time_s, line=line.number, text=to_str(event.get("message")))
    elif kind == "collab_agent_spawn_end":
        child = to_str(event.get("new_thread_id") or event.get("receiver_thread_id"))
        if child:
            b.spawn(
                child,
                to_str(event.get("call_id")),
                agent_type=to_str(event.get("agent_type")),
                prompt=to_str(event.get("prompt")),
                parent_agent=agent,
            )
    elif kind in _QUIET_EVENTS or kind in _TASK_START + _TASK_END:
        return
    else:
        b.raw(line, event, agent, why=f"unknown event {to_str(kind)!r}")


def _patch_applied(b: Builder, event: dict) -> None:
    """The tool's own diffs replace the ones rebuilt from the patch text."""
    call_id, recorded = to_str(event.get("call_id")), event.get("changes")
    call = b.tool_event(call_id)
    if not isinstance(recorded, dict):
        return
    rebuilt = {c.path: c for c in call.changes} if call else {}
    changes = []
    for path, change in recorded.items():
        if not isinstance(change, dict):
            continue
        kind, move = to_str(change.get("type")) or "update", to_str(change.get("move_path")) or None
        before = rebuilt.get(move or path) or rebuilt.get(path)
        diff = with_header(move or path, to_str(change.get("unified_diff")))
        content = (
            to_str(change.get("content"))
            if kind == "add" and "content" in change
            else (before.new_content if before else None)
        )
        action = {"add": "create", "delete": "delete"}.get(kind, "move" if move else "edit")
        changes.append(
            FileChange(
                move or path,
                action,
                diff or (before.diff if before else ""),
                "tool" if diff else "patch",
                new_content=content,
                move_to=move,
                replacements=before.replacements if before else (),
            )
        )
    if changes and call:
        b.update_tool(call_id, changes=tuple(changes))


def _attach_child_rollouts(b: Builder, path: Path) -> None:
    """Collab subagents write their own rollout file; one beside this one is read into its node."""
    children = [key for key in b.spawn_keys() if key]
    if not children:
        return
    for sibling in sorted(path.parent.glob("rollout-*.jsonl")):
        if sibling == path:
            continue
        head = next(iter_lines(sibling), None)
        child = to_str(get(head.obj, "payload", "id")) if head and head.obj else ""
        if child in children:
            b.source = sibling.name
            _parse_file(b, sibling, child, {"total": TokenUsage(), "updates": 0, "open_task": False, "saw_task": False})
    b.source = path.name
