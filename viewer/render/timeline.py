"""The timeline: every event as an <article> with a stable anchor (`id="e<n>"`), and each
subagent as a collapsible tree under the tool call that spawned it."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable

from ..coerce import clip, to_json, to_str
from ..model import Event, Subagent, TokenUsage, Transcript
from .cards import TODO_TOOLS, checklist, command_message, input_preview, todo_items
from .text import esc, fold, highlight_diff, markdown, pre

# Tools whose input is a shell command: the command stays shown beside any file change it made.
_SHELL_TOOLS = {
    "Bash",
    "bash",
    "shell",
    "exec_command",
    "local_shell",
    "container.exec",
    "Shell",
    "Execute",
    "run_shell_command",
    "command_execution",
}

KIND_LABELS = {
    "user": "user",
    "assistant": "assistant",
    "reasoning": "reasoning",
    "tool": "tool",
    "system": "system",
    "error": "error",
    "raw": "raw",
}


def fmt_tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.2f}M"
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


NOT_RECORDED = "not recorded"


def fmt_count(count: int | None) -> str:
    """A token count; None (the transcript did not record it) is said, never shown as 0."""
    return NOT_RECORDED if count is None else f"{count:,}"


def fmt_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


def fmt_time(time_s: float | None) -> str:
    if time_s is None:
        return ""
    try:
        return datetime.fromtimestamp(time_s, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):
        return ""


def token_badge(tokens: TokenUsage | None) -> str:
    if not tokens:
        return ""
    parts = [
        ("in", tokens.fresh_input),
        ("cache r", tokens.cache_read),
        ("cache w", tokens.cache_write),
        ("out", tokens.output),
        ("think", tokens.reasoning),
    ]
    title = ", ".join(f"{name} {fmt_count(value)}" for name, value in parts)
    shown = " · ".join(f"{name} {fmt_tokens(value)}" for name, value in parts if value)
    return f'<span class="badge tokens" title="{esc(title)}">{esc(shown)}</span>'


class Timeline:
    """Renders events; `spawned` maps a tool id to the subagents it started."""

    def __init__(self, transcript: Transcript):
        self.start_s = transcript.started_at
        self.spawned: dict[str, list[Subagent]] = {}
        for top in transcript.subagents:
            for node in top.walk():
                self.spawned.setdefault(node.parent_tool_id, []).append(node)
        self.placed: set[str] = set()

    def render(self, events: Iterable[Event]) -> str:
        return "".join(self.event(e) for e in events)

    def unplaced(self, transcript: Transcript) -> str:
        """Subagents whose spawning call is not in the transcript still show, at the end."""
        rest = [node for top in transcript.subagents for node in top.walk() if node.key not in self.placed]
        if not rest:
            return ""
        # Walking top-down, rendering a node places its descendants, so each shows once.
        body = "".join(self.subagent(node) for node in rest if node.key not in self.placed)
        return (
            f'<section class="unplaced"><h3>Subagents whose spawning call is not in the transcript</h3>{body}</section>'
        )

    def event(self, e: Event) -> str:
        if e.subtype == "quiet":
            return (
                f'<article class="ev ev-system quiet" id="{esc(e.anchor)}" data-kind="system">'
                f'<p class="quiet-line">{esc(e.text)}</p></article>'
            )
        head = self.head(e)
        if e.kind == "reasoning":
            body = f'<details class="reasoning-body"><summary>reasoning ({len(e.text):,} characters)</summary>{fold(e.text, markdown, "text")}</details>'
        elif e.kind in ("assistant", "user"):
            body = command_message(e.text) or fold(e.text, markdown, "text")
        elif e.kind == "tool":
            body = self.tool_body(e)
        elif e.kind == "raw":
            where = f"{e.source}:{e.line}" if e.line else e.source
            body = f'<p class="raw-note">{esc(e.subtype or "unknown record")} ({esc(where)})</p>' + fold(e.text, pre)
        elif e.subtype == "plan" and todo_items(e.tool_input):
            body = (fold(e.text, markdown, "text") if e.text else "") + checklist(todo_items(e.tool_input))
        else:
            body = command_message(e.text) or fold(e.text, pre, "text")
        classes = (
            f"ev ev-{esc(e.kind)}"
            + (" is-error" if e.is_error else "")
            + (" off-branch" if e.subtype == "abandoned branch" else "")
        )
        return (
            f'<article class="{classes}" id="{esc(e.anchor)}" data-kind="{esc(e.kind)}">{head}'
            f'<div class="ev-body">{body}</div>{self.children_of(e)}</article>'
        )

    def preamble(self, events: list[Event]) -> str:
        """Setup records before the first user message (session start, injected context), folded."""
        kinds = sorted({e.subtype or e.kind for e in events})
        return (
            f'<details class="preamble"><summary>{len(events)} setup event{"s" if len(events) != 1 else ""} '
            f'before the first user message ({esc(", ".join(kinds)[:200])})</summary>{self.render(events)}</details>'
        )

    def unknown_notice(self, events: list[Event], anchor: str = "") -> str:
        """Records no parser recognised: counted by kind in one notice, each kept inside it verbatim.
        The main thread's notice has the anchor the top-of-page line links to."""
        by_kind: dict[str, int] = {}
        for e in events:
            by_kind[e.subtype or "unknown record"] = by_kind.get(e.subtype or "unknown record", 0) + 1
        kinds = ", ".join(f"{kind} ×{n}" if n > 1 else kind for kind, n in sorted(by_kind.items()))
        anchor_attr = f' id="{esc(anchor)}"' if anchor else ""
        return (
            f'<details class="unknown-notice ev-raw"{anchor_attr}><summary>{len(events):,} record'
            f'{"s" if len(events) != 1 else ""} this viewer does not know: {esc(kinds)}</summary>'
            f'{self.render(events)}</details>'
        )

    def head(self, e: Event) -> str:
        label = KIND_LABELS.get(e.kind, "raw")
        parts = [f'<span class="kind">{label}</span>']
        if e.kind == "tool":
            parts.append(f'<span class="tool-name">{esc(e.tool_name or "(unnamed tool)")}</span>')
            summary = tool_summary(e)
            if summary:
                parts.append(f'<span class="summary">{esc(summary)}</span>')
            if e.is_error:
                parts.append('<span class="badge err">error</span>')
            elif e.result is None:
                parts.append('<span class="badge pending">no result</span>')
        elif e.subtype and e.kind in ("system", "error", "user", "assistant"):
            parts.append(f'<span class="summary">{esc(e.subtype)}</span>')
        if e.time_s is not None:
            offset = (
                f" (+{fmt_duration(e.time_s - self.start_s)})"
                if self.start_s is not None and e.time_s >= self.start_s
                else ""
            )
            parts.append(
                f'<time title="{esc(fmt_time(e.time_s))}">{esc(fmt_time(e.time_s)[11:19])}{esc(offset)}</time>'
            )
        if e.duration_s is not None:
            parts.append(f'<span class="dur" title="duration">{esc(fmt_duration(e.duration_s))}</span>')
        parts.append(token_badge(e.tokens))
        parts.append(f'<a class="anchor" href="#{esc(e.anchor)}" title="link to this event">#</a>')
        return f'<header class="ev-head">{"".join(parts)}</header>'

    def tool_body(self, e: Event) -> str:
        items = todo_items(e.tool_input) if e.tool_name in TODO_TOOLS else None
        out = []
        if items is not None:
            out.append(checklist(items))
        elif not e.changes or e.tool_name in _SHELL_TOOLS:
            # An edit's strings are the diff below: shown once, as the diff.
            out.append(
                f'<div class="args"><div class="label">arguments</div>{input_preview(tool_args_text(e.tool_input))}</div>'
            )
        for change in e.changes:
            out.append(
                f'<div class="change"><div class="change-head"><span class="action">{esc(change.action)}</span> '
                f'<span class="path">{esc(change.path)}</span> <span class="src">({esc(change.source)} diff)</span></div>'
                f'{fold(change.diff, highlight_diff, "diff")}</div>'
            )
        if e.result is not None:
            label = "error" if e.is_error else "result"
            out.append(
                f'<div class="result"><div class="label">{label}</div>'
                f"{fold(e.result, pre) if e.result else '<p class=empty>(empty)</p>'}</div>"
            )
        return "".join(out)

    def children_of(self, e: Event) -> str:
        if e.kind != "tool" or not e.tool_id or e.tool_id not in self.spawned:
            return ""
        return "".join(self.subagent(node) for node in self.spawned[e.tool_id] if node.key not in self.placed)

    def subagent(self, node: Subagent) -> str:
        self.placed.add(node.key)
        counts = f"{len(node.events)} events · {node.tool_calls} tool calls"
        tokens = f" · {fmt_tokens(node.tokens.total)} tokens" if node.tokens else ""
        title = node.description or node.key
        prompt = (
            f'<div class="prompt"><div class="label">prompt</div>{fold(node.prompt, pre)}</div>' if node.prompt else ""
        )
        shown, unknown = split_unknown(node.events)
        body = self.render(shown) + (self.unknown_notice(unknown) if unknown else "")
        body = body or '<p class="empty">(no events recorded for this subagent)</p>'
        return (
            f'<details class="subagent" data-agent="{esc(node.key)}"><summary><span class="kind">subagent</span>'
            f'<span class="tool-name">{esc(node.agent_type or "agent")}</span>'
            f'<span class="summary">{esc(title)}</span><span class="badge">{esc(counts + tokens)}</span>'
            f'</summary>{prompt}<div class="sub-events">{body}</div></details>'
        )


def split_unknown(events) -> tuple[list[Event], list[Event]]:
    """(events shown in place, records no parser recognised). A line that is not valid JSON stays
    in place: it marks where the file was cut or corrupted."""
    shown, unknown = [], []
    for e in events:
        is_unknown = e.kind == "raw" and not e.subtype.startswith("not valid JSON")
        (unknown if is_unknown else shown).append(e)
    return shown, unknown


def split_preamble(events: list[Event]) -> tuple[list[Event], list[Event]]:
    """(setup events before the first user message, the conversation from it on)."""
    first_user = next((i for i, e in enumerate(events) if e.kind == "user"), 0)
    return events[:first_user], events[first_user:]


_SUMMARY_KEYS = (
    "command",
    "cmd",
    "file_path",
    "filePath",
    "path",
    "absolute_path",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
)


def tool_summary(e: Event) -> str:
    """One line that says what the call did: its command, path or query."""
    args = e.tool_input
    if isinstance(args, dict):
        for key in _SUMMARY_KEYS:
            value = args.get(key)
            if isinstance(value, list):
                value = " ".join(to_str(v) for v in value)
            if isinstance(value, str) and value.strip():
                first = value.strip().splitlines()[0]
                return first[:160] + ("…" if len(first) > 160 or "\n" in value.strip() else "")
    if isinstance(args, str) and args.strip():
        return args.strip().splitlines()[0][:160]
    return e.subtype


def tool_args_text(args: Any) -> str:
    """Commands show as text; everything else as indented JSON (clipped like any other text)."""
    return clip(_args_text(args))


def _args_text(args: Any) -> str:
    if isinstance(args, dict) and len(args) <= 3:
        command = args.get("command", args.get("cmd"))
        if isinstance(command, str) and "\n" in command:
            rest = {k: v for k, v in args.items() if k not in ("command", "cmd")}
            return command + ("\n\n" + to_json(rest) if rest else "")
    if isinstance(args, str):
        return args
    return to_json(args) if args is not None else ""


__all__ = ["NOT_RECORDED", "Timeline", "fmt_count", "fmt_duration", "fmt_time", "fmt_tokens", "token_badge"]
