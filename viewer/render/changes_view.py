"""The 'changes' tab: every file the run touched, with its combined diff and final content."""

from __future__ import annotations

from ..model import Transcript
from .text import esc, fold, highlight_code, highlight_diff


def render_changes(transcript: Transcript) -> str:
    if not transcript.file_changes:
        return '<p class="empty">This run changed no files that the transcript records.</p>'
    index = "".join(
        f'<li><a href="#file-{i}">{esc(f.path)}</a> <span class="muted">({len(f.changes)} '
        f"change{'s' if len(f.changes) != 1 else ''})</span></li>"
        for i, f in enumerate(transcript.file_changes)
    )
    sections = []
    for i, summary in enumerate(transcript.file_changes):
        links = " ".join(f'<a href="#{esc(c.anchor)}">{esc(c.action)}</a>' for c in summary.changes)
        final = (
            f'<details class="final"><summary>final content ({summary.final_content.count(chr(10)) + 1:,} lines)</summary>'
            f"{fold(summary.final_content, lambda t, p=summary.path: highlight_code(t, filename=p), 'code')}</details>"
            if summary.final_content is not None
            else '<p class="muted">Final content not known from the transcript.</p>'
        )
        sections.append(
            f'<section class="file" id="file-{i}"><h3>{esc(summary.path)}</h3>'
            f'<p class="muted">changes: {links}</p>'
            f"{fold(summary.combined_diff, highlight_diff, 'diff')}{final}</section>"
        )
    return f'<ul class="file-index">{index}</ul>{"".join(sections)}'
