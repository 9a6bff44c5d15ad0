"""The whole page: header, summary cards, incomplete-run banner, tabs (timeline, changes, run
artifacts), with the stylesheet and script inline and a Content-Security-Policy that allows
nothing else: no request can leave the page, and no script but ours can run."""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from pathlib import Path

from ..load import load_transcript
from ..model import EVENT_KINDS, Transcript
from . import lazy
from .artifacts import artifact_tabs
from .changes_view import render_changes
from .script import SCRIPT
from .style import CSS
from .text import esc, pygments_css, reset_ids
from .timeline import (
    NOT_RECORDED,
    Timeline,
    split_preamble,
    split_unknown,
    fmt_count,
    fmt_duration,
    fmt_time,
    fmt_tokens,
)


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def render_page(
    transcript_or_path,
    *,
    run_dir=None,
    title=None,
    inline_bytes: int = lazy.INLINE_BYTES,
    chunk_bytes: int = lazy.CHUNK_BYTES,
) -> str:
    """The page's HTML. Events past the first `inline_bytes` of HTML are rendered lazily, in
    chunks of about `chunk_bytes` (see lazy.py)."""
    if isinstance(transcript_or_path, Transcript):
        transcript = transcript_or_path
    else:
        path = Path(transcript_or_path)
        transcript = load_transcript(path)
        if (
            run_dir is None
            and path.is_dir()
            and any((path / n).exists() for n in ("result.json", "solution.py", "logs"))
        ):
            run_dir = path
    reset_ids()
    title = (
        title
        or f"{transcript.harness} · {transcript.model or 'unknown model'} · {transcript.session_id or Path(transcript.path).name}"
    )
    timeline = Timeline(transcript)
    shown, unknown = split_unknown(transcript.events)
    preamble, conversation = split_preamble(shown)
    pieces = [(timeline.preamble(preamble), 40)] if preamble else []
    pieces += [(timeline.event(e), lazy.estimated_height(e)) for e in conversation]
    if unknown:
        pieces.append((timeline.unknown_notice(unknown, anchor="unknown-records"), 40))
    unplaced = timeline.unplaced(transcript)
    if unplaced:
        pieces.append((unplaced, 200))
    lazy_timeline = lazy.split(pieces, inline_bytes, chunk_bytes)
    last = transcript.events[-1].anchor if transcript.events else ""
    tabs = [
        ("timeline", "timeline", _timeline_panel(lazy_timeline.body_html, last)),
        (
            "changes",
            f"changes ({len(transcript.file_changes)} file{'' if len(transcript.file_changes) == 1 else 's'})",
            render_changes(transcript),
        ),
    ]
    tabs += [(tab.key, tab.label, tab.body_html) for tab in artifact_tabs(run_dir)]
    tab_buttons = "".join(
        f'<button type="button" class="tab" data-tab="{esc(key)}" aria-selected="{str(i == 0).lower()}">'
        f"{esc(label)}</button>"
        for i, (key, label, _) in enumerate(tabs)
    )
    panels = "".join(
        f'<section class="panel" id="tab-{esc(key)}"{" hidden" if i else ""}>{body}</section>'
        for i, (key, _, body) in enumerate(tabs)
    )
    css = CSS + pygments_css()
    csp = (
        f"default-src 'none'; script-src '{_sha256(SCRIPT)}'; style-src '{_sha256(css)}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en" data-theme="light"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="no-referrer"><title>{esc(title)}</title><style>{css}</style></head>'
        f"<body><main><h1>{esc(title)}</h1>{_banner(transcript)}{_unknown_line(unknown)}{_cards(transcript)}"
        f'<div class="toolbar"><nav class="tabs">{tab_buttons}</nav>{_controls(transcript)}</div>'
        f"{panels}</main>{lazy_timeline.data_html()}<script>{SCRIPT}</script></body></html>\n"
    )


def _banner(t: Transcript) -> str:
    out = ""
    if not t.complete:
        out += f'<div class="banner" role="alert"><strong>Incomplete run.</strong> {esc(t.incomplete_reason or "no final record")}</div>'
    for warning in t.warnings:
        if warning != t.incomplete_reason:
            out += f'<div class="warn">{esc(warning)}</div>'
    return out


def _unknown_line(unknown) -> str:
    if not unknown:
        return ""
    return (
        f'<div class="warn">{len(unknown):,} record{"s" if len(unknown) != 1 else ""} this viewer does not know: '
        f'<a href="#unknown-records">listed at the end of the timeline</a></div>'
    )


def _cards(t: Transcript) -> str:
    tokens = t.tokens
    cards = [
        ("harness", f"{t.harness} ({t.format}{' ' + t.format_version if t.format_version else ''})"),
        ("model", t.model or "not recorded"),
        ("effort", t.effort or "—"),
        ("session", t.session_id or "—"),
        ("working directory", t.cwd or "—"),
        ("started", fmt_time(t.started_at) or "—"),
        ("duration", fmt_duration(t.duration_s) or "—"),
        ("turns", str(t.turns)),
        ("tool calls", str(t.tool_calls)),
        ("fresh input tokens", fmt_count(tokens.fresh_input)),
        ("cache read tokens", fmt_count(tokens.cache_read)),
        ("cache write tokens", fmt_count(tokens.cache_write)),
        ("output tokens", fmt_count(tokens.output)),
        ("reasoning tokens", fmt_count(tokens.reasoning)),
        ("total tokens", NOT_RECORDED if tokens.total is None else f"{tokens.total:,} ({fmt_tokens(tokens.total)})"),
        ("cost", _cost_text(t)),
        ("subagents", str(sum(1 for top in t.subagents for _ in top.walk()))),
        ("files changed", str(len(t.file_changes))),
    ]
    body = "".join(
        f'<div class="card" data-card="{esc(k)}"><div class="k">{esc(k)}</div><div class="v">{esc(v)}</div></div>'
        for k, v in cards
    )
    return f'<div class="cards">{body}</div>'


def _cost_text(t: Transcript) -> str:
    """The CLI's own figure where it states one, else an estimate from the dated price table."""
    if t.cost_usd is not None:
        return f"${t.cost_usd:.4f}"
    from ..pricing import estimate_cost

    estimate = estimate_cost(t.model, t.tokens)
    return estimate.label if estimate else "not stated"


def _controls(t: Transcript) -> str:
    counts = {kind: 0 for kind in EVENT_KINDS}
    for event in t.all_events():
        counts[event.kind] = counts.get(event.kind, 0) + 1
    boxes = "".join(
        f'<label><input type="checkbox" data-kind="{kind}" checked> {kind} ({counts[kind]})</label>'
        for kind in EVENT_KINDS
        if counts[kind]
    )
    return (
        f'<input id="search" type="search" placeholder="search events…" aria-label="search events">'
        f'<span id="search-status" class="muted"></span><span class="filters">{boxes}</span>'
        f'<button type="button" id="expand-all">expand all</button><button type="button" id="collapse-all">collapse all</button>'
        f'<button type="button" id="theme" title="light / dark">theme</button>'
    )


def _timeline_panel(events_html: str, last_anchor: str) -> str:
    return (
        f'<div id="timeline" data-last-event="{esc(last_anchor)}">'
        f'{events_html or "<p class=empty>No events.</p>"}</div>'
    )


def write_page(transcript_or_path, out_path, *, run_dir=None, title=None) -> Path:
    """Render and write atomically (temp file, then rename)."""
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    page = render_page(transcript_or_path, run_dir=run_dir, title=title)
    handle, temp = tempfile.mkstemp(dir=out_path.parent, prefix=f".{out_path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(page)
        os.replace(temp, out_path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return out_path
