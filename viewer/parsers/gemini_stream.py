"""Gemini CLI `-o stream-json`: `init`, `message` (assistant text may arrive as deltas),
`tool_use`, `tool_result`, `error`, and a final `result` with token stats (per model under
`stats.models`, or as totals)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..builder import Builder
from ..coerce import count, get, minus, parse_args, to_float, to_str, to_text
from ..model import TokenUsage, Transcript, sum_usage
from .gemini_common import changes
from .records import records, type_and_time

FORMAT, HARNESS = "gemini-stream", "Gemini CLI"


def parse(path: Path) -> Transcript:
    b = Builder(FORMAT, HARNESS, path)
    segment = 0  # assistant deltas join until something else happens
    for line, obj in records(b, path):
        kind, time_s = type_and_time(obj)
        if kind == "init":
            b.session_id, b.model = to_str(obj.get("session_id")), to_str(obj.get("model"))
            b.add(
                "system",
                subtype="init",
                text=f"Session started, model {b.model or '?'}",
                time_s=time_s,
                line=line.number,
            )
        elif kind == "message":
            role = "user" if obj.get("role") == "user" else "assistant"
            text = to_text(obj.get("content"))
            joined = role == "assistant" and obj.get("delta") and b.append_text(None, "assistant", text, segment)
            if not joined:
                b.add(role, text=text, time_s=time_s, line=line.number)
        elif kind == "tool_use":
            segment += 1
            name, args = to_str(obj.get("tool_name")), parse_args(obj.get("parameters"))
            b.call(to_str(obj.get("tool_id")), name, args, changes=changes(name, args), time_s=time_s, line=line.number)
        elif kind == "tool_result":
            segment += 1
            failed = obj.get("status") == "error"
            output = get(obj, "error", "message") if failed else obj.get("output")
            b.result(to_str(obj.get("tool_id")), to_text(output), failed, time_s, line=line.number)
        elif kind == "error":
            segment += 1
            b.add(
                "error" if obj.get("severity") != "warning" else "system",
                subtype="error",
                text=to_str(obj.get("message")),
                time_s=time_s,
                line=line.number,
            )
        elif kind == "result":
            _result(b, obj, line.number, time_s)
        else:
            b.raw(line, obj)
    return b.build()


def _result(b: Builder, obj: dict, line: int, time_s) -> None:
    stats = obj.get("stats") if isinstance(obj.get("stats"), dict) else {}
    models = stats.get("models") if isinstance(stats.get("models"), dict) else {}
    per_model = [m for m in models.values() if isinstance(m, dict)] or [stats]
    b.stated_tokens = sum_usage(_usage(m) for m in per_model)
    duration_ms = to_float(stats.get("duration_ms"))
    b.duration_s = duration_ms / 1000 if duration_ms is not None else None
    b.complete = obj.get("status") == "success"
    message = to_str(get(obj, "error", "message"))
    b.incomplete_reason = f"the run ended with status {to_str(obj.get('status')) or '?'}" + (
        f": {message}" if message else ""
    )
    b.add(
        "system" if b.complete else "error",
        subtype="result",
        time_s=time_s,
        line=line,
        text=f"Run finished: {to_str(obj.get('status')) or '?'}" + (f"\n{message}" if message else ""),
    )


def _usage(stats: Any) -> TokenUsage:
    """`result.stats` (or one model's entry under `stats.models`, 0.34+), from
    packages/core/src/output/stream-json-formatter.ts: `input_tokens` is the prompt (cached
    included), `cached` its cached part and `input` the rest (both 0.22+), `output_tokens` the
    candidates (thoughts excluded), `total_tokens` the API's total. The stream has no thoughts
    key: thoughts (with any tool-use prompt tokens, which the API also counts apart from the
    prompt) are only inside `total_tokens`, so reasoning is that remainder; None where
    `total_tokens` is missing. Before 0.22 `cached` is absent: cache reads are not recorded and
    `input_tokens` is taken as fresh input."""
    cached = count(stats, "cached")
    prompt = count(stats, "input_tokens")
    fresh = count(stats, "input")
    if fresh is None:
        fresh = minus(prompt, cached)
    output = count(stats, "output_tokens", "output")
    reasoning = count(stats, "thoughts")
    total = count(stats, "total_tokens")
    if reasoning is None and total is not None and prompt is not None and output is not None:
        reasoning = max(total - prompt - output, 0)
    return TokenUsage(fresh_input=fresh, cache_read=cached, output=output, reasoning=reasoning)
