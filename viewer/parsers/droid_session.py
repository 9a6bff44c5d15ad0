"""Factory droid's session store (`~/.factory/sessions/<workspace slug>/<uuid>.jsonl`, the files
`droid` writes for every interactive or `exec` session), as opposed to its `-o stream-json` output.

  {type: session_start, id, title, owner, cwd}
  {type: message, id, timestamp, message{role, content[Anthropic-style blocks: text, thinking,
      tool_use{id, name, input}, tool_result{tool_use_id, content, is_error}]}}
  {type: todo_state, todos[...]}              the to-do list as it stands (shown as a checklist)
Token usage is in the `<uuid>.settings.json` sidecar (`tokenUsage`), read as for the stream.
There is no end record: completeness is judged by the last event.
"""

from __future__ import annotations

from pathlib import Path

from ..builder import Builder
from ..coerce import as_dict, get, to_str
from ..model import Transcript
from .claude_common import add_message
from .droid import read_settings
from .records import records, type_and_time

FORMAT, HARNESS = "droid-session", "Factory droid"


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    for line, obj in records(b, path):
        kind, time_s = type_and_time(obj)
        if kind == "session_start":
            b.session_id, b.cwd = to_str(obj.get("id")) or b.session_id, to_str(obj.get("cwd")) or b.cwd
            title = to_str(obj.get("title"))
            b.add(
                "system",
                subtype="session",
                text=f"Session started{': ' + title if title else ''}",
                time_s=time_s,
                line=line.number,
            )
        elif kind == "message":
            message = as_dict(obj.get("message"))
            role = "assistant" if message.get("role") == "assistant" else "user"
            add_message(b, message, role, None, line=line.number, time_s=time_s)
            b.model = b.model or to_str(message.get("model"))
        elif kind == "todo_state":
            todos = obj.get("todos") if isinstance(obj.get("todos"), list) else get(obj, "state", "todos")
            b.add(
                "system",
                subtype="plan",
                text="To-do list",
                tool_input={"todos": todos or []},
                time_s=time_s,
                line=line.number,
            )
        else:
            b.raw(line, obj, why=f"unknown record {kind!r}")
    read_settings(b, path)
    b.judge_by_last_event("the session ends before a final answer (no end record in this format)")
    return b.build()
