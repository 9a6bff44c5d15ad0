"""Claude Code message handling shared by the stream-json and session-file parsers: content
blocks to events, tool results paired by id, edit tools to file changes, usage per response."""

from __future__ import annotations

from typing import Any

from ..builder import MAIN, Builder
from ..coerce import as_list, clip, count, get, to_str, to_text
from ..edits import (
    edit_change,
    multi_edit_change,
    shell_writes,
    structured_patch_diff,
    write_change,
)
from ..model import FileChange, TokenUsage

SPAWN_TOOLS = ("Task", "Agent")


def usage_of(usage: Any) -> TokenUsage:
    """Anthropic usage: input_tokens already excludes cache reads and writes."""
    return TokenUsage(
        fresh_input=count(usage, "input_tokens"),
        cache_read=count(usage, "cache_read_input_tokens"),
        cache_write=count(usage, "cache_creation_input_tokens"),
        output=count(usage, "output_tokens"),
    )


def input_changes(name: str, tool_input: Any) -> list[FileChange]:
    if not isinstance(tool_input, dict):
        return []
    path = to_str(tool_input.get("file_path"))
    if name == "Edit" and path:
        return [
            edit_change(
                path,
                to_str(tool_input.get("old_string")),
                to_str(tool_input.get("new_string")),
                bool(tool_input.get("replace_all")),
            )
        ]
    if name == "MultiEdit" and path:
        return [multi_edit_change(path, as_list(tool_input.get("edits")))]
    if name == "Write" and path:
        return [write_change(path, to_str(tool_input.get("content")))]
    if name == "Bash":
        return shell_writes(to_str(tool_input.get("command")))
    return []


def result_changes(call_changes: tuple[FileChange, ...], tool_result: Any) -> list[FileChange] | None:
    """Prefer the tool's own structuredPatch over the diff rebuilt from the call's input."""
    if not isinstance(tool_result, dict) or not call_changes:
        return None
    diff = structured_patch_diff(
        to_str(tool_result.get("filePath")) or call_changes[0].path, tool_result.get("structuredPatch")
    )
    action = "create" if tool_result.get("type") == "create" else call_changes[0].action
    if not diff and action == call_changes[0].action and not isinstance(tool_result.get("originalFile"), str):
        return None
    first = call_changes[0]
    original = tool_result.get("originalFile")
    updated = FileChange(
        first.path,
        action,
        diff or first.diff,
        "tool" if diff else first.source,
        new_content=first.new_content,
        replacements=first.replacements,
        replace_all=first.replace_all,
        old_content=original if isinstance(original, str) else None,
    )
    return [updated, *call_changes[1:]]


def add_message(
    b: Builder, message: Any, role: str, agent: str | None, *, line: int, time_s: float | None, tool_result: Any = None
) -> None:
    """One message line: its content blocks become events."""
    content = get(message, "content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        b.raw(line, message, agent, why="message without content")
        return
    for block in content:
        if not isinstance(block, dict):
            b.raw(line, block, agent, why="unknown content block")
            continue
        kind = to_str(block.get("type"))
        if kind == "text":
            b.add(
                "assistant" if role == "assistant" else "user",
                agent,
                text=clip(to_str(block.get("text"))),
                time_s=time_s,
                line=line,
            )
        elif kind == "thinking":
            text = to_str(block.get("thinking"))
            b.add("reasoning", agent, text=text or "(thinking not recorded: signature only)", time_s=time_s, line=line)
        elif kind == "redacted_thinking":
            b.add("reasoning", agent, text="(redacted thinking)", time_s=time_s, line=line)
        elif kind == "tool_use":
            name, tool_input = to_str(block.get("name")), block.get("input")
            tool_id = to_str(block.get("id"))
            b.call(tool_id, name, tool_input, agent, changes=input_changes(name, tool_input), time_s=time_s, line=line)
            if name in SPAWN_TOOLS and isinstance(tool_input, dict) and tool_id:
                spawned(b, tool_id, tool_input, agent)
        elif kind == "tool_result":
            tool_id = to_str(block.get("tool_use_id"))
            if isinstance(tool_result, dict) and tool_result.get("agentId"):
                b.links[to_str(tool_result["agentId"])] = tool_id
            call = b.tool_event(tool_id)
            changes = result_changes(call.changes, tool_result) if call else None
            b.result(tool_id, to_text(block.get("content")), bool(block.get("is_error")), time_s, changes, agent, line)
        elif kind == "image":
            b.add("user" if role == "user" else "assistant", agent, text="[image]", time_s=time_s, line=line)
        else:
            b.raw(line, block, agent, why=f"unknown content block {to_str(kind)!r}")


def spawned(b: Builder, tool_id: str, tool_input: dict, agent: str | None = MAIN) -> None:
    """Remember a Task/Agent call; the subagent keyed by this call id is placed under it. The input
    `{subagent_type, description, prompt}` is Claude's Task tool's, which droid and opencode copy."""
    b.register_spawn_call(
        tool_id,
        to_str(tool_input.get("subagent_type")),
        to_str(tool_input.get("description")),
        to_str(tool_input.get("prompt")),
        agent,
    )


def add_compaction(
    b: Builder, agent: str | None, line: int, time_s: float | None, trigger: str, tokens_before: int
) -> None:
    """A `compact_boundary` record as one card. Each parser reads the metadata itself: session
    files name it in camelCase (`compactMetadata{trigger, preTokens}`), the stream in snake_case."""
    b.add(
        "system",
        agent,
        subtype="compaction",
        line=line,
        time_s=time_s,
        text=f"Context compacted ({trigger or 'auto'}; {tokens_before:,} tokens before)",
    )
