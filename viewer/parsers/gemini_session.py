"""Gemini CLI session files: `session-*.json` (`{sessionId, startTime, lastUpdated, messages[]}`)
and, from 0.39, JSONL (a metadata line, message lines written again in full when they change,
`$set` metadata and checkpoint lines, `$rewindTo` lines).

Tool calls sit inside the `gemini` message with their results; tokens are per message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import MAIN, Builder
from ..coerce import as_list, get, to_str, to_text, to_time_s
from ..jsonl import Line, read_json
from ..model import Transcript
from .gemini_common import changes, content_text, gemini_usage
from .records import records, type_and_time

FORMAT, HARNESS = "gemini-session", "Gemini CLI"
_DONE = ("success", "error", "cancelled")


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    whole = read_json(path)
    if isinstance(whole, dict):
        header = whole
        messages = [(0, m, False) for m in as_list(whole.get("messages")) if isinstance(m, dict)]
    else:
        header, messages = _read_jsonl(b, path)
    b.session_id = to_str(header.get("sessionId"))
    b.started_at = to_time_s(header.get("startTime"))
    for number, message, abandoned in messages:
        before = {e.anchor for e in b.thread()}
        _message(b, message, number)
        if abandoned:
            b.retag(MAIN, lambda e: e.anchor not in before, subtype="abandoned branch")
    live = [e for e in b.thread() if e.subtype != "abandoned branch"]
    last = live[-1] if live else None
    if last is not None and last.kind == "error":
        b.complete, b.incomplete_reason = False, f"the run ended with an error: {last.text[:300]}"
    else:
        b.judge_by_last_event("the session ends before a final answer")
    return b.build()


def _read_jsonl(b: Builder, path: Path) -> tuple[dict, list[tuple[int, dict, bool]]]:
    """The records of packages/core/src/services/chatRecordingService.ts (0.39+): a metadata
    line `{sessionId, projectHash, startTime, lastUpdated, kind?}`; message lines, a message
    written again in full (same `id`) each time it changes; `{"$set": {...}}` metadata updates,
    where `$set.messages` is a checkpoint of the whole history; `{"$rewindTo": id}`, which drops
    that message and every later one from the conversation.

    Rewound messages are kept and marked (as a rewound Claude branch is): the work happened.
    A checkpoint adds the messages it holds that were not seen (e.g. a compression summary);
    messages already recorded keep their recorded form (the checkpoint may mask tool output)."""
    header: dict = {}
    entries: list[list] = []  # [line, message, abandoned], in first-seen order
    live: dict[str, list] = {}  # id -> its entry, for messages not rewound

    def put(number: int, message: dict, replace: bool) -> None:
        message_id = to_str(message.get("id"))
        if message_id in live:
            if replace:
                live[message_id][:2] = [number, dict(message)]
            return
        entry = [number, dict(message), False]
        entries.append(entry)
        live[message_id] = entry

    for line, obj in records(b, path):
        if "$rewindTo" in obj:
            target = to_str(obj.get("$rewindTo"))
            ids = list(live)
            dropped = ids[ids.index(target) :] if target in live else ids
            for message_id in dropped:
                live.pop(message_id)[2] = True
        elif "$set" in obj:
            patch = obj["$set"] if isinstance(obj["$set"], dict) else {}
            message_id = to_str(obj.get("id") or patch.get("id"))
            if message_id and message_id in live:  # a message patch by id (never seen written; tolerated)
                live[message_id][1].update({k: v for k, v in patch.items() if k != "id"})
                continue
            for message in as_list(patch.get("messages")):
                if isinstance(message, dict) and message.get("id") is not None and message.get("type"):
                    put(line.number, message, replace=False)
            header = {**header, **{k: v for k, v in patch.items() if k != "messages"}}
        elif obj.get("id") is not None and obj.get("type"):
            put(line.number, obj, replace=True)
        elif "messages" in obj or "sessionId" in obj:
            header = {**header, **{k: v for k, v in obj.items() if k != "messages"}}
            for message in as_list(obj.get("messages")):
                if isinstance(message, dict) and message.get("id") is not None and message.get("type"):
                    put(line.number, message, replace=True)
        else:
            b.raw(line, obj)
    return header, [(number, message, abandoned) for number, message, abandoned in entries]


def _message(b: Builder, message: dict, line: int) -> None:
    kind, time_s = type_and_time(message)
    if kind == "user":
        text = content_text(message.get("content"))
        if text or not _only_tool_parts(message.get("content")):
            b.add("user", text=text, time_s=time_s, line=line)
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
        text = content_text(message.get("content"))
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
            text=content_text(message.get("content")),
            time_s=time_s,
            line=line,
        )
    elif kind == "info":
        b.add("system", subtype="info", text=content_text(message.get("content")), time_s=time_s, line=line)
    else:
        b.raw(Line(line, message), message, why=f"unknown message type {kind!r}")


def _only_tool_parts(content: Any) -> bool:
    """A user turn rebuilt from the history that only answers tool calls (shown with the calls)."""
    parts = content if isinstance(content, list) else []
    return bool(parts) and all(isinstance(p, dict) and "functionResponse" in p for p in parts)


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
