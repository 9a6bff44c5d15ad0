"""Gemini CLI session files: `session-*.json` (`{sessionId, startTime, lastUpdated, messages[]}`)
and, from 0.40, JSONL (a header line, message lines, and `$set` lines that patch a message by id).

Tool calls sit inside the `gemini` message with their results; tokens are per message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import Builder
from ..coerce import as_list, get, to_str, to_text, to_time_s
from ..jsonl import Line, iter_lines, read_json
from ..model import Transcript
from .gemini_common import changes, gemini_usage

FORMAT, HARNESS = "gemini-session", "Gemini CLI"
_DONE = ("success", "error", "cancelled")


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    whole = read_json(path)
    if isinstance(whole, dict):
        header, messages = whole, [(0, m) for m in as_list(whole.get("messages")) if isinstance(m, dict)]
    else:
        header, messages = _read_jsonl(b, path)
    b.session_id = to_str(header.get("sessionId"))
    b.started_at = to_time_s(header.get("startTime"))
    for number, message in messages:
        _message(b, message, number)
    last = b.last_event()
    if last is not None and last.kind == "error":
        b.complete, b.incomplete_reason = False, f"the run ended with an error: {last.text[:300]}"
    else:
        b.judge_by_last_event("the session ends before a final answer")
    return b.build()


def _read_jsonl(b: Builder, path: Path) -> tuple[dict, list[tuple[int, dict]]]:
    header: dict = {}
    order: list[str] = []
    by_id: dict[str, tuple[int, dict]] = {}
    for line in iter_lines(path):
        obj = line.obj
        if obj is None:
            b.raw(line)
        elif "$set" in obj:
            patch = obj["$set"] if isinstance(obj["$set"], dict) else {}
            message_id = to_str(obj.get("id") or patch.get("id"))
            if message_id in by_id:
                by_id[message_id][1].update({k: v for k, v in patch.items() if k != "id"})
            elif message_id == "" and not header:
                b.raw(line, obj, why="$set for no known message")
            else:
                b.raw(line, obj, why=f"$set for unknown message {message_id!r}")
        elif "messages" in obj or ("sessionId" in obj and "type" not in obj):
            header = obj
        elif obj.get("id") is not None and obj.get("type"):
            message_id = to_str(obj["id"])
            if message_id not in by_id:
                order.append(message_id)
            by_id[message_id] = (line.number, dict(obj))
        else:
            b.raw(line, obj)
    return header, [by_id[i] for i in order]


def _message(b: Builder, message: dict, line: int) -> None:
    kind, time_s = to_str(message.get("type")), to_time_s(message.get("timestamp"))
    if kind == "user":
        b.add("user", text=to_text(message.get("content")), time_s=time_s, line=line)
    elif kind == "gemini":
        b.model = b.model or to_str(message.get("model"))
        first = None
        for thought in as_list(message.get("thoughts")):
            event = b.add(
                "reasoning",
                text=f"**{to_str(get(thought, 'subject'))}**\n{to_str(get(thought, 'description'))}",
                time_s=to_time_s(get(thought, "timestamp")) or time_s,
                line=line,
            )
            first = first or event.anchor
        text = to_text(message.get("content"))
        if text:
            event = b.add("assistant", text=text, time_s=time_s, line=line)
            first = first or event.anchor
        for call in as_list(message.get("toolCalls")):
            if isinstance(call, dict):
                event = _tool_call(b, call, line, time_s)
                first = first or event.anchor
        if isinstance(message.get("tokens"), dict):
            b.usage(("message", to_str(message.get("id")) or line), gemini_usage(message["tokens"]), anchor=first)
    elif kind in ("error", "warning"):
        b.add(
            "error" if kind == "error" else "system",
            subtype=kind,
            text=to_text(message.get("content")),
            time_s=time_s,
            line=line,
        )
    elif kind == "info":
        b.add("system", subtype="info", text=to_text(message.get("content")), time_s=time_s, line=line)
    else:
        b.raw(Line(line, message), message, why=f"unknown message type {kind!r}")


def _tool_call(b: Builder, call: dict, line: int, time_s):
    name, args, call_id = to_str(call.get("name")), call.get("args"), to_str(call.get("id"))
    event = b.call(
        call_id,
        name,
        args,
        changes=changes(name, args, call.get("resultDisplay")),
        time_s=to_time_s(call.get("timestamp")) or time_s,
        line=line,
    )
    status = to_str(call.get("status"))
    if status in _DONE or call.get("result") is not None:
        b.result(
            call_id, _result_text(call.get("result"), call.get("resultDisplay")), status != "success", None, line=line
        )
    return event


def _result_text(result: Any, display: Any) -> str:
    """Results are lists of `functionResponse` parts; the text is in `response.output`."""
    if isinstance(result, list):
        texts = []
        for part in result:
            response = get(part, "functionResponse", "response")
            texts.append(to_text(get(response, "output") or get(response, "error") or response or part))
        return "\n".join(texts)
    if result is None and isinstance(display, str):
        return display
    return to_text(result)
