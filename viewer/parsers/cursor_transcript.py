"""Cursor's agent transcripts (`~/.cursor/projects/<project>/agent-transcripts/<id>.jsonl`): one
message per line, `{role: user|assistant, message{content[blocks]}}`, with no `type` key (so they
were once taken for kimi-print and lost every assistant turn). User text is wrapped in
`<user_query>` tags, dropped here. Blocks: text, thinking, tool_use{id, name, input},
tool_result{tool_use_id, content}. No usage and no end record: tokens are not recorded and
completeness is judged by the last event.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..builder import Builder
from ..coerce import as_dict, to_str
from ..model import Transcript
from .claude_common import add_message
from .records import records

FORMAT, HARNESS = "cursor-transcript", "Cursor"
_USER_QUERY = re.compile(r"</?user_query>")


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    for line, obj in records(b, path):
        role = to_str(obj.get("role"))
        message = as_dict(obj.get("message"))
        if role not in ("user", "assistant") or not message:
            b.raw(line, obj, why=f"unknown record (role {role!r})")
            continue
        content = message.get("content")
        if role == "user" and isinstance(content, list):
            content = [
                block | {"text": _USER_QUERY.sub("", to_str(block.get("text"))).strip()}
                if isinstance(block, dict) and block.get("type") == "text"
                else block
                for block in content
            ]
        elif role == "user" and isinstance(content, str):
            content = _USER_QUERY.sub("", content).strip()
        add_message(b, {"content": content}, role, None, line=line.number, time_s=None)
    b.judge_by_last_event("the transcript ends before a final answer (no end record in this format)")
    return b.build()
