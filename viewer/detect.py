"""Which format a transcript file is in, from its first lines (or its one JSON document)."""

from __future__ import annotations

from pathlib import Path

from .coerce import get
from .jsonl import head_lines, read_json

_CODEX_ROLLOUT_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
_OPENCODE_TYPES = {"step_start", "step_finish", "text", "reasoning", "tool_use", "error"}
_GEMINI_STREAM_TYPES = {"init", "message", "tool_use", "tool_result", "error", "result"}
_CODEX_EXEC_TURNS = {"turn.started", "turn.completed", "turn.failed"}
# Kimi Code's flat wire records (protocol 1.4); "turn." alone would also match codex exec.
_KIMI_CODE_TYPES = {
    "context.append_loop_event",
    "context.append_message",
    "usage.record",
    "turn.prompt",
    "turn.ended",
    "turn.steer",
    "turn.cancel",
    "config.update",
}


class UnknownFormat(ValueError):
    pass


def detect_format(path: Path) -> str:
    lines = [line.obj for line in head_lines(path) if line.obj is not None]
    if not lines:
        whole = read_json(path) if path.stat().st_size < 200_000_000 else None
        if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
            return "gemini-session"
        raise UnknownFormat(f"{path}: no JSON object in the first lines; pass format=... to force one")
    scores: dict[str, int] = {}
    for obj in lines:
        for fmt in _votes(obj):
            scores[fmt] = scores.get(fmt, 0) + 1
    if not scores:
        raise UnknownFormat(f"{path}: the first lines match no known transcript format; pass format=...")
    return max(scores, key=lambda fmt: scores[fmt])


def _votes(obj: dict) -> list[str]:
    kind = obj.get("type") if isinstance(obj.get("type"), str) else None
    if "messages" in obj and "sessionId" in obj:
        return ["gemini-session"]
    if "$set" in obj or ("sessionId" in obj and "projectHash" in obj):
        return ["gemini-session"]
    if kind in ("user", "gemini", "info") and "id" in obj and "content" in obj and "message" not in obj:
        return ["gemini-session"]
    if "payload" in obj and kind in _CODEX_ROLLOUT_TYPES:
        return ["codex-rollout"]
    if kind in _KIMI_CODE_TYPES or "protocol_version" in obj:
        return ["kimi-wire"]
    if isinstance(kind, str) and (kind.startswith(("thread.", "item.")) or kind in _CODEX_EXEC_TURNS):
        return ["codex-exec"]
    if "part" in obj and "sessionID" in obj and kind in _OPENCODE_TYPES:
        return ["opencode"]
    if (
        isinstance(obj.get("message"), dict)
        and isinstance(get(obj, "message", "type"), str)
        and "payload" in obj["message"]
    ):
        return ["kimi-wire"]
    if "role" in obj and "type" not in obj:
        # Cursor's agent transcripts nest the content in `message`; Kimi's print stream does not.
        return ["cursor-transcript"] if isinstance(obj.get("message"), dict) else ["kimi-print"]
    if kind == "session_start" and ("owner" in obj or "title" in obj or "cwd" in obj):
        return ["droid-session"]
    if kind == "todo_state" or (
        kind == "message"
        and isinstance(obj.get("message"), dict)
        and "role" not in obj
        and "sessionId" not in obj
        and "parentUuid" not in obj
    ):
        return ["droid-session"]
    if "parentUuid" in obj or ("sessionId" in obj and "uuid" in obj) or kind in ("file-history-snapshot", "summary"):
        return ["claude-session"]
    if kind == "system" and obj.get("subtype") == "init":
        if "reasoning_effort" in obj:
            return ["droid"]
        if "claude_code_version" in obj or "mcp_servers" in obj:
            return ["claude-stream"]
        if "apiKeySource" in obj:
            return ["cursor"]
        return []
    if kind in ("tool_call", "thinking") and ("call_id" in obj or "subtype" in obj):
        return ["cursor"]
    if kind in ("tool_call", "tool_result", "completion") and (
        "toolName" in obj or "isError" in obj or "finalText" in obj
    ):
        return ["droid"]
    if kind == "message" and "role" in obj and "text" in obj and "id" in obj:
        return ["droid"]
    if "parent_tool_use_id" in obj or (kind == "result" and "total_cost_usd" in obj):
        return ["claude-stream"]
    if (
        kind in _GEMINI_STREAM_TYPES
        and "timestamp" in obj
        and ("tool_id" in obj or "session_id" in obj or "role" in obj or "stats" in obj)
    ):
        return ["gemini-stream"]
    return []
