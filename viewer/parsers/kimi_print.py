"""Kimi CLI `--print --output-format stream-json`: OpenAI-chat-like message lines.

The format records no usage and no end record, so tokens are zero and completeness is judged
from the last message (assistant text with every tool call answered).
"""

from __future__ import annotations

from pathlib import Path

from ..builder import Builder
from ..coerce import as_list, to_str, to_text, to_time_s
from ..model import Transcript
from .kimi_common import add_call
from .records import records

FORMAT, HARNESS = "kimi-print", "Kimi CLI"


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    for line, obj in records(b, path):
        role, content, time_s = to_str(obj.get("role")), obj.get("content"), to_time_s(obj.get("timestamp"))
        if role == "assistant":
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else as_list(content)
            for part in parts if isinstance(parts, list) else []:
                kind = to_str(part.get("type")) if isinstance(part, dict) else None
                if kind == "think":
                    b.add("reasoning", text=to_str(part.get("think")), time_s=time_s, line=line.number)
                elif kind == "text":
                    if to_str(part.get("text")):
                        b.add("assistant", text=to_str(part.get("text")), time_s=time_s, line=line.number)
                else:
                    b.raw(line, part, why="unknown content part")
            for call in as_list(obj.get("tool_calls")):
                add_call(b, call, None, line.number, time_s)
        elif role == "tool":
            b.result(to_str(obj.get("tool_call_id")), to_text(content), time_s=time_s, line=line.number)
        elif role in ("user", "system"):
            b.add(role, text=to_text(content), time_s=time_s, line=line.number)
        else:
            b.raw(line, obj)
    b.judge_by_last_event("no end record in this format, and the last message is not a final answer")
    return b.build()
