"""One parser module per transcript format; this table is the only registry (no import-time
side effects). Each module exposes FORMAT, HARNESS and `parse(path) -> Transcript`."""

from __future__ import annotations

from . import (
    claude_session,
    claude_stream,
    codex_exec,
    codex_rollout,
    cursor,
    cursor_transcript,
    droid,
    droid_session,
    gemini_session,
    gemini_stream,
    kimi_print,
    kimi_wire,
    opencode,
)

PARSERS = {
    module.FORMAT: module
    for module in (
        claude_stream,
        claude_session,
        codex_rollout,
        codex_exec,
        opencode,
        kimi_print,
        kimi_wire,
        cursor,
        cursor_transcript,
        droid,
        droid_session,
        gemini_session,
        gemini_stream,
    )
}
