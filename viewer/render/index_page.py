"""The session index: one page listing sessions (a folder of them, or several paths), each row
linking that session's own page, with its agent, model, start time, tokens, cost and outcome.

Static HTML with no script (a table of 1,000 rows is fast to open, and the CSP allows no script);
rows are in start-time order, newest first, so the latest run is at the top.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import tempfile
from pathlib import Path

from ..model import Transcript
from .page import write_page
from .text import esc
from .timeline import fmt_duration, fmt_time, fmt_tokens

_INDEX_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2430;background:#fff}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:20px;margin:0 0 4px}.muted{color:#5b6472}
table{border-collapse:collapse;width:100%;margin-top:12px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e3e6ea;vertical-align:top}
th{font-weight:600;background:#f5f7f9;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37}.bad{color:#b42318}.est{color:#5b6472;font-size:12px}
"""


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(_INDEX_CSS.encode()).digest()).decode()
    return f"default-src 'none'; style-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"


def _page_name(number: int, transcript: Transcript) -> str:
    stem = Path(transcript.path).stem or "session"
    return f"{number:04d}-{re.sub(r'[^A-Za-z0-9._-]+', '_', stem)[:80]}.html"


def _cost_cell(t: Transcript) -> str:
    from ..pricing import estimate_cost

    if t.cost_usd is not None:
        return f"${t.cost_usd:.2f}"
    estimate = estimate_cost(t.model, t.tokens)
    return f'${estimate.usd:.2f} <span class="est">estimate</span>' if estimate else "—"


def render_index(rows: list[tuple[Transcript, str]], title: str) -> str:
    """The index page's HTML for (transcript, link to its page) pairs."""
    ordered = sorted(rows, key=lambda row: row[0].started_at or 0, reverse=True)
    body = []
    for t, href in ordered:
        outcome = (
            '<span class="ok">complete</span>'
            if t.complete
            else f'<span class="bad" title="{esc(t.incomplete_reason)}">incomplete</span>'
        )
        tokens = "not recorded" if t.tokens.total is None else fmt_tokens(t.tokens.total)
        body.append(
            f'<tr><td><a href="{esc(href)}">{esc(t.session_id or Path(t.path).name)}</a></td>'
            f"<td>{esc(t.harness)}</td><td>{esc(t.model or 'not recorded')}</td>"
            f"<td>{esc(fmt_time(t.started_at) or '—')}</td><td class=n>{esc(fmt_duration(t.duration_s) or '—')}</td>"
            f"<td class=n>{esc(tokens)}</td><td class=n>{_cost_cell(t)}</td><td>{outcome}</td></tr>"
        )
    complete = sum(1 for t, _ in rows if t.complete)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_csp()}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">'
        f"<title>{esc(title)}</title><style>{_INDEX_CSS}</style></head><body><main>"
        f"<h1>{esc(title)}</h1><p class=muted>{len(rows):,} sessions, {complete:,} complete; newest first</p>"
        "<table><thead><tr><th>session</th><th>agent</th><th>model</th><th>started</th><th>duration</th>"
        "<th>tokens</th><th>cost</th><th>outcome</th></tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table></main></body></html>\n"
    )


def write_index(index_path: Path, transcripts: list[Transcript], title: str | None = None) -> Path:
    """Write each session's page into `<index stem>_pages/` and the index beside it; returns that folder."""
    index_path = Path(index_path)
    pages = index_path.with_name(f"{index_path.stem}_pages")
    rows = []
    for number, transcript in enumerate(transcripts, start=1):
        name = _page_name(number, transcript)
        write_page(transcript, pages / name)
        rows.append((transcript, f"{pages.name}/{name}"))
    _write_atomically(index_path, render_index(rows, title or f"{len(transcripts):,} sessions"))
    return pages


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
