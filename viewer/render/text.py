"""Turning transcript text into safe HTML: escaping, ANSI and control-character removal,
Markdown (raw HTML disabled, images never loaded), Pygments highlighting, and folding of long
text behind a 'show all' button. Everything from a transcript passes through `esc` or `markdown`.
"""

from __future__ import annotations

import html
import itertools
import re
from functools import lru_cache

from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import DiffLexer, get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

# Folding: text longer than this shows a preview and a 'show all' button.
FOLD_LINES = 40
FOLD_CHARS = 4_000
# Work limits: above these, text is shown plain instead of highlighted / rendered as Markdown.
HIGHLIGHT_LIMIT_CHARS = 400_000
MARKDOWN_LIMIT_CHARS = 200_000

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ids = itertools.count(1)


def clean(text: str) -> str:
    """Drop ANSI escape sequences; show other control characters as visible symbols."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL.sub(lambda m: chr(0x2400 + ord(m.group())) if ord(m.group()) < 32 else "\u2421", text)


def esc(text: object) -> str:
    return html.escape(clean(str(text)), quote=True)


def fresh_id(prefix: str) -> str:
    return f"{prefix}{next(_ids)}"


def reset_ids() -> None:
    """Ids restart per page so the same transcript always renders the same HTML."""
    global _ids
    _ids = itertools.count(1)


# --- folding -----------------------------------------------------------------------------------


def needs_fold(text: str) -> bool:
    return len(text) > FOLD_CHARS or text.count("\n") > FOLD_LINES


def preview(text: str) -> str:
    head = "\n".join(text.split("\n", FOLD_LINES)[:FOLD_LINES])
    return head[:FOLD_CHARS]


def fold(text: str, render, cls: str = "out") -> str:
    """`render(text) -> html`. Long text shows a preview; the rest waits in a <template> that the
    browser neither lays out nor searches until 'show all' is pressed."""
    if not needs_fold(text):
        return f'<div class="{cls}">{render(text)}</div>'
    tid = fresh_id("t")
    lines = text.count("\n") + 1
    return (
        f'<div class="{cls} folded"><div class="preview">{render(preview(text))}</div>'
        f'<button type="button" class="show-all" data-template="{tid}">show all ({lines:,} lines, '
        f'{len(text):,} characters)</button><template id="{tid}">{render(text)}</template></div>'
    )


def pre(text: str) -> str:
    return f"<pre>{esc(text)}</pre>"


# --- highlighting --------------------------------------------------------------------------------

_FORMATTER = HtmlFormatter(nowrap=True)


def highlight_diff(diff: str) -> str:
    if not diff:
        return '<pre class="hl diff empty">(no diff recorded)</pre>'
    if len(diff) > HIGHLIGHT_LIMIT_CHARS:
        return f'<pre class="hl diff">{esc(diff)}</pre>'
    return f'<pre class="hl diff">{highlight(clean(diff), DiffLexer(), _FORMATTER)}</pre>'


@lru_cache(maxsize=64)
def _lexer_for(name: str, by_filename: bool):
    try:
        return get_lexer_for_filename(name) if by_filename else get_lexer_by_name(name)
    except (ClassNotFound, ValueError):
        return None


def highlight_code(code: str, filename: str = "", language: str = "") -> str:
    lexer = _lexer_for(language, False) if language else (_lexer_for(filename, True) if filename else None)
    if lexer is None or len(code) > HIGHLIGHT_LIMIT_CHARS:
        return f'<pre class="hl">{esc(code)}</pre>'
    return f'<pre class="hl">{highlight(clean(code), lexer, _FORMATTER)}</pre>'


def pygments_css() -> str:
    light = HtmlFormatter(style="default").get_style_defs(".hl")
    dark = HtmlFormatter(style="monokai").get_style_defs(":root[data-theme=dark] .hl")
    return light + "\n" + dark


# --- Markdown ------------------------------------------------------------------------------------


def _fence(code: str, language: str, _attrs: str) -> str:
    return highlight_code(code, language=language.strip().split()[0]) if language.strip() else ""


def _image_as_text(renderer, tokens, idx, options, env):
    """Images are never loaded (no request leaves the page): show alt text and address instead."""
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or [])
    return f'<span class="md-image">[image: {esc(alt)} &lt;{esc(token.attrGet("src") or "")}&gt;]</span>'


def _link_open(renderer, tokens, idx, options, env):
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    return renderer.renderToken(tokens, idx, options, env)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": _fence}).enable("table")
    md.add_render_rule("image", _image_as_text)
    md.add_render_rule("link_open", _link_open)  # markdown-it binds rules to the renderer
    return md


def markdown(text: str) -> str:
    if len(text) > MARKDOWN_LIMIT_CHARS:
        return pre(text)
    try:
        return f'<div class="md">{_markdown().render(clean(text))}</div>'
    except Exception:  # noqa: BLE001 - a Markdown edge case must not stop the page build
        return pre(text)
