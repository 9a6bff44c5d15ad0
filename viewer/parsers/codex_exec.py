"""OpenAI Codex CLI `exec --json` stream: `thread.started`, `turn.*` and `item.*` records.

The stream names no model and its `file_change` items carry no diff text, so file changes show
the paths and kinds only (and writes through shell heredocs). Usage is per turn (`turn.completed`)
and summed; `input_tokens` includes cached tokens, split out as for rollouts.
"""

from __future__ import annotations

from pathlib import Path

from ..builder import Builder
from ..coerce import as_list, get, to_str, to_text
from ..edits import command_text, shell_writes
from ..model import FileChange, Transcript
from .codex_rollout import codex_usage
from .records import records, type_and_time

FORMAT, HARNESS = "codex-exec", "Codex CLI"
_TOOL_ITEMS = {"command_execution", "file_change", "mcp_tool_call", "web_search", "todo_list", "collab_tool_call"}
_ACTIONS = {"add": "create", "delete": "delete", "update": "edit"}


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    turns, last_turn_event = 0, ""
    for line, obj in records(b, path):
        kind, time_s = type_and_time(obj)
        if kind == "thread.started":
            b.session_id = to_str(obj.get("thread_id"))
        elif kind == "turn.started":
            last_turn_event = kind
        elif kind == "turn.completed":
            turns += 1
            last_turn_event = kind
            b.usage(("turn", turns), codex_usage(obj.get("usage")))
        elif kind == "turn.failed":
            last_turn_event = kind
            message = to_str(
                (obj.get("error") or {}).get("message") if isinstance(obj.get("error"), dict) else obj.get("error")
            )
            b.add("error", subtype="turn.failed", text=f"Turn failed: {message}", time_s=time_s, line=line.number)
            b.incomplete_reason = f"turn failed: {message}"
        elif kind.startswith("item.") and isinstance(obj.get("item"), dict):
            _item(b, kind, obj["item"], line.number, time_s)
        elif kind == "item.plan.delta":
            continue  # the completed plan item carries the whole text
        elif kind == "request_user_input":
            questions = "\n".join(to_str(get(q, "question") or q) for q in as_list(obj.get("questions")))
            b.add("system", subtype="request_user_input", text=questions, time_s=time_s, line=line.number)
        elif kind == "error":
            b.add("error", text=to_str(obj.get("message")), time_s=time_s, line=line.number)
        else:
            b.raw(line, obj)
    b.complete = last_turn_event == "turn.completed"
    if not b.complete and last_turn_event != "turn.failed":
        b.incomplete_reason = "no turn.completed record: the run ended mid-turn"
    b.stated_turns = turns
    return b.build()


def _item(b: Builder, kind: str, item: dict, line: int, time_s) -> None:
    item_type, item_id = to_str(item.get("type")), to_str(item.get("id"))
    if item_type in _TOOL_ITEMS:
        if b.tool_event(item_id) is None:
            b.call(item_id, item_type, _arguments(item), changes=_changes(item), time_s=time_s, line=line)
        if kind == "item.completed":
            status = to_str(item.get("status"))
            code = item.get("exit_code")
            failed = status == "failed" or (isinstance(code, int) and code != 0) or bool(item.get("error"))
            b.result(item_id, _output(item), failed, time_s, changes=_changes(item) or None, line=line)
    elif kind != "item.completed":
        return  # messages and reasoning are rendered once, when complete
    elif item_type == "agent_message":
        b.add("assistant", text=to_str(item.get("text")), time_s=time_s, line=line)
    elif item_type == "reasoning":
        b.add("reasoning", text=to_str(item.get("text")), time_s=time_s, line=line)
    elif item_type == "plan":  # plan mode (codex 0.6x)
        b.add("assistant", subtype="plan", text=to_str(item.get("text")), time_s=time_s, line=line)
    elif item_type == "error":
        b.add("error", text=to_str(item.get("message")), time_s=time_s, line=line)
    else:
        b.raw(line, item, why=f"unknown item {item_type!r}")


def _arguments(item: dict):
    kind = to_str(item.get("type"))
    if kind == "command_execution":
        return {"command": item.get("command")}
    if kind == "file_change":
        return {"changes": item.get("changes")}
    if kind == "mcp_tool_call":
        return {"server": item.get("server"), "tool": item.get("tool"), "arguments": item.get("arguments")}
    if kind == "web_search":
        return {"query": item.get("query")}
    if kind == "collab_tool_call":
        return {"tool": item.get("tool"), "prompt": item.get("prompt"), "receivers": item.get("receiver_thread_ids")}
    return {"items": item.get("items")}


def _output(item: dict) -> str:
    kind = to_str(item.get("type"))
    if kind == "command_execution":
        code = item.get("exit_code")
        return to_text(item.get("aggregated_output")) + (f"\n[exit code {code}]" if code is not None else "")
    if kind == "mcp_tool_call":
        return to_text(item.get("result") or item.get("error"))
    if kind == "file_change":
        return to_str(item.get("status"))
    if kind == "collab_tool_call":
        return to_text(item.get("agents_states"))
    return to_text(item.get("items") or item.get("query"))


def _changes(item: dict) -> list[FileChange]:
    if item.get("type") == "command_execution":
        return shell_writes(command_text(item.get("command")))
    if item.get("type") != "file_change" or not isinstance(item.get("changes"), list):
        return []
    return [
        FileChange(to_str(c.get("path")), _ACTIONS.get(to_str(c.get("kind")), "edit"), "", "none")
        for c in item["changes"]
        if isinstance(c, dict) and c.get("path")
    ]
