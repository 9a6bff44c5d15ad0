"""Lazy timeline for big transcripts: the first events go into the page as HTML, the rest wait as
chunks of HTML text inside inert `<script type="application/x-ceiling-chunk">` blocks, each with a
placeholder of about its height in the timeline. The page's script turns a chunk into elements when
its placeholder nears the screen (or a search, a link or 'expand all' needs it).

Why: Chromium spends seconds building and styling the elements of a 70 MB page before its script
runs (13 s here for the 100 MB benchmark transcript), while text in a script block is only scanned.
Small pages (under INLINE_BYTES of events) come out exactly as before: all inline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..coerce import to_json
from ..model import Event
from .text import FOLD_LINES

INLINE_BYTES = 400_000  # events rendered into the page itself, from the top
CHUNK_BYTES = 200_000  # about this much HTML per lazy chunk
CHUNK_TYPE = "application/x-ceiling-chunk"
# A chunk is text inside <script>: only "</script" or "<!--" could end or confuse it. Transcript
# text is always escaped, so these never occur; the guard keeps that true whatever changes.
_SCRIPT_BREAKERS = re.compile(r"<(?=/script|!--)", re.IGNORECASE)


@dataclass(frozen=True)
class LazyTimeline:
    body_html: str  # inline events and placeholders, for inside #timeline
    chunks: tuple[str, ...]  # the HTML of each lazy chunk, by number

    def data_html(self) -> str:
        return "".join(
            f'<script type="{CHUNK_TYPE}" id="chunk-{i}">{_SCRIPT_BREAKERS.sub("&lt;", html)}</script>'
            for i, html in enumerate(self.chunks)
        )


def split(pieces: list[tuple[str, int]], inline_bytes: int = INLINE_BYTES, chunk_bytes: int = CHUNK_BYTES):
    """pieces: (html, estimated height in px) of each top-level event, in order."""
    if sum(len(html) for html, _ in pieces) <= inline_bytes:
        return LazyTimeline("".join(html for html, _ in pieces), ())
    inline, index, used = [], 0, 0
    while index < len(pieces) and used + len(pieces[index][0]) <= inline_bytes:
        inline.append(pieces[index][0])
        used += len(pieces[index][0])
        index += 1
    chunks: list[str] = []
    placeholders: list[str] = []
    while index < len(pieces):
        parts, size, height = [], 0, 0
        while index < len(pieces) and (not parts or size + len(pieces[index][0]) <= chunk_bytes):
            parts.append(pieces[index][0])
            size += len(pieces[index][0])
            height += pieces[index][1]
            index += 1
        placeholders.append(f'<div class="lazy" data-chunk="{len(chunks)}" data-h="{height}" aria-busy="true"></div>')
        chunks.append("".join(parts))
    return LazyTimeline("".join(inline) + "".join(placeholders), tuple(chunks))


def estimated_height(e: Event) -> int:
    """About how tall an event renders (px), so the scrollbar is right before chunks render."""

    def lines(text: str | None) -> int:
        return min((text or "").count("\n") + 1, FOLD_LINES + 2) if text else 0

    if e.kind == "reasoning":
        return 64
    if e.kind == "tool":
        args = e.tool_input if isinstance(e.tool_input, str) else to_json(e.tool_input)
        blocks = [args, e.result] + [c.diff for c in e.changes]
        return 70 + 19 * sum(lines(b) for b in blocks)
    return 52 + 20 * lines(e.text)
