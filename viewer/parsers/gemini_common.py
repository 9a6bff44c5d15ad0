"""Gemini CLI pieces shared by the session and stream parsers: token counts and edit tools."""

from __future__ import annotations

from typing import Any

from ..coerce import count, get, minus, to_json, to_str, to_text
from ..edits import edit_change, shell_writes, with_header, write_change
from ..model import FileChange, TokenUsage


def gemini_usage(tokens: Any) -> TokenUsage:
    """Gemini's `input` includes cached tokens; `tool` (tool-use prompt tokens) is fresh input;
    `thoughts` are reported apart from `output`."""
    cached = count(tokens, "cached")
    fresh = minus(count(tokens, "input"), cached)
    tool = count(tokens, "tool")
    return TokenUsage(
        fresh_input=fresh if tool is None else (fresh or 0) + tool,
        cache_read=cached,
        output=count(tokens, "output"),
        reasoning=count(tokens, "thoughts"),
    )


def content_text(content: Any) -> str:
    """A message's `content` (a `PartListUnion`: a string, one part or a list of parts) as text.

    Text parts are joined; `thought` parts (reported apart in `thoughts`), `functionCall` and
    `functionResponse` parts (shown with their tool calls) are left out; inline data is named.
    Session files rewritten from the model history (0.39+ `$set.messages`) hold such lists."""
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return to_text(content)
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict) or part.get("thought") is True:
            continue
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif "functionCall" in part or "functionResponse" in part:
            continue
        elif isinstance(part.get("inlineData"), dict) or isinstance(part.get("fileData"), dict):
            data = part.get("inlineData") or part.get("fileData")
            texts.append(f"[{to_str(data.get('mimeType')) or 'data'}]")
        else:
            texts.append(to_json(part))
    return to_text("\n".join(texts))


def changes(name: str, args: Any, display: Any = None) -> list[FileChange]:
    """Edit tools; `resultDisplay.fileDiff` (the tool's own diff) is preferred when recorded."""
    if not isinstance(args, dict):
        return []
    path = to_str(args.get("file_path") or args.get("absolute_path"))
    recorded = with_header(path, to_str(get(display, "fileDiff")))
    new_content = get(display, "newContent")
    old_content = get(display, "originalContent")
    old_content = old_content if isinstance(old_content, str) else None
    if name == "replace" and path:
        rebuilt = edit_change(
            path, to_str(args.get("old_string")), to_str(args.get("new_string")), args.get("allow_multiple") is True
        )
        if recorded:
            return [
                FileChange(
                    path,
                    "edit",
                    recorded,
                    "tool",
                    replacements=rebuilt.replacements,
                    replace_all=rebuilt.replace_all,
                    new_content=new_content if isinstance(new_content, str) else None,
                    old_content=old_content,
                )
            ]
        return [rebuilt]
    if name == "write_file" and path:
        change = write_change(path, to_str(args.get("content")))
        return [FileChange(path, "write", recorded, "tool", new_content=change.new_content)] if recorded else [change]
    if name == "run_shell_command":
        return shell_writes(to_str(args.get("command")))
    return []
