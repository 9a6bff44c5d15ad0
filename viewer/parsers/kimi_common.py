"""Kimi CLI tool calls shared by the print-stream and wire parsers: arguments, file changes and
Task subagents."""

from __future__ import annotations

from typing import Any

from ..builder import Builder
from ..coerce import get, parse_args, to_str
from ..edits import edit_change, shell_writes, unified, write_change
from ..model import FileChange


def add_call(b: Builder, call: Any, agent, line: int, time_s) -> str:
    call_id = to_str(get(call, "id"))
    name = to_str(get(call, "function", "name") or get(call, "name"))
    args = parse_args(get(call, "function", "arguments", default=get(call, "arguments")))
    b.call(call_id, name, args, agent, changes=changes(name, args), time_s=time_s, line=line)
    if name in ("Task", "Agent") and isinstance(args, dict) and call_id:
        b.register_spawn_call(
            call_id,
            to_str(args.get("subagent_name") or args.get("subagent_type")),
            to_str(args.get("description")),
            to_str(args.get("prompt")),
            agent,
        )
    return call_id


def changes(name: str, args: Any) -> list[FileChange]:
    if not isinstance(args, dict):
        return []
    path = to_str(args.get("path") or args.get("file_path"))
    if name in ("WriteFile", "Write") and path:  # Kimi Code names it Write ({path, content})
        if args.get("mode") == "append":
            return [FileChange(path, "edit", unified("", to_str(args.get("content")), path), "rebuilt")]
        return [write_change(path, to_str(args.get("content")))]
    if name == "StrReplaceFile" and path:
        edits = args.get("edit")
        edits = edits if isinstance(edits, list) else [edits]
        built = [
            edit_change(path, to_str(get(e, "old")), to_str(get(e, "new")), bool(get(e, "replace_all")))
            for e in edits
            if isinstance(e, dict)
        ]
        if not built:
            return []
        return [
            FileChange(
                path,
                "edit",
                "".join(c.diff for c in built),
                "rebuilt",
                replacements=tuple(p for c in built for p in c.replacements),
                replace_all=any(c.replace_all for c in built),
            )
        ]
    if name == "Edit" and path and "old_string" in args:
        return [
            edit_change(
                path, to_str(args.get("old_string")), to_str(args.get("new_string")), bool(args.get("replace_all"))
            )
        ]
    if name in ("Shell", "Bash"):
        return shell_writes(to_str(args.get("command")))
    return []
