"""Cards for the events a reader should not have to decode: to-do lists as checklists (Claude's
TodoWrite, Codex's plan updates, Kimi's SetTodoList, OpenCode's todowrite), Claude Code's slash
command messages (`<command-name>/clear</command-name>`), and long tool input shown as a
200-character preview with 'show all'."""

from __future__ import annotations

import re
from typing import Any

from ..coerce import to_str
from .text import esc, fresh_id, pre

TODO_TOOLS = {"TodoWrite", "todowrite", "SetTodoList", "update_plan", "todo_write"}
INPUT_PREVIEW_CHARS = 200
_MARKS = {"completed": "☑", "done": "☑", "in_progress": "◐", "in progress": "◐", "pending": "☐", "cancelled": "☒"}
_COMMAND_TAGS = re.compile(
    r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr)>"
    r"(.*?)</\1>",
    re.S,
)


def todo_items(tool_input: Any) -> list[tuple[str, str]] | None:
    """(status, text) of each item of a to-do list input, or None when the input holds no list."""
    if not isinstance(tool_input, dict):
        return None
    items = tool_input.get("todos", tool_input.get("plan", tool_input.get("todo_list")))
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if isinstance(item, dict):
            text = to_str(item.get("content") or item.get("step") or item.get("title") or item.get("text"))
            out.append((to_str(item.get("status")).lower() or "pending", text))
    return out


def checklist(items: list[tuple[str, str]]) -> str:
    rows = "".join(
        f'<li class="todo-{esc(status.replace(" ", "_"))}"><span class="mark" aria-label="{esc(status)}">'
        f'{_MARKS.get(status, "☐")}</span> {esc(text)}</li>'
        for status, text in items
    )
    done = sum(1 for status, _ in items if status in ("completed", "done"))
    return f'<div class="checklist"><div class="muted">{done} of {len(items)} done</div><ul>{rows}</ul></div>'


def command_message(text: str) -> str | None:
    """Claude Code's slash-command records as a command line and its output; None for other text."""
    if "<command-name>" not in text and "<local-command-std" not in text:
        return None
    parts = {name: body.strip() for name, body in _COMMAND_TAGS.findall(text)}
    rest = _COMMAND_TAGS.sub("", text).strip()
    out = ""
    if "command-name" in parts:
        line = " ".join(p for p in (parts["command-name"], parts.get("command-args", "")) if p)
        out += f'<div class="command"><code>{esc(line)}</code></div>'
    for stream in ("local-command-stdout", "local-command-stderr"):
        if stream in parts:
            body = parts[stream]
            out += pre(body) if body else f'<p class="empty">({stream.split("-")[-1]}: no output)</p>'
    if rest:
        out += pre(rest)
    return out


def input_preview(text: str, render=pre) -> str:
    """Tool input longer than INPUT_PREVIEW_CHARS: its first characters and a 'show all' button."""
    if len(text) <= INPUT_PREVIEW_CHARS:
        return f'<div class="out">{render(text)}</div>'
    tid = fresh_id("t")
    return (
        f'<div class="out folded"><div class="preview">{render(text[:INPUT_PREVIEW_CHARS] + " …")}</div>'
        f'<button type="button" class="show-all" data-template="{tid}">show all ({text.count(chr(10)) + 1:,} lines, '
        f'{len(text):,} characters)</button><template id="{tid}">{render(text)}</template></div>'
    )
