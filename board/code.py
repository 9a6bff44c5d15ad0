"""Text into HTML: Pygments for code, markdown-it (raw HTML off) for prompts and notes."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup
from pygments import highlight as _pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer, TextLexer, get_lexer_for_filename
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(cssclass="hl", linenos="table")
_FORMATTER_PLAIN = HtmlFormatter(cssclass="hl")
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def highlight(source: str, filename: str = "x.py", line_numbers: bool = True) -> Markup:
    try:
        lexer = get_lexer_for_filename(filename, stripnl=False)
    except ClassNotFound:
        lexer = PythonLexer(stripnl=False) if filename.endswith(".py") else TextLexer(stripnl=False)
    return Markup(_pygments_highlight(source, lexer, _FORMATTER if line_numbers else _FORMATTER_PLAIN))


@lru_cache(maxsize=256)
def highlight_cached(source: str, filename: str) -> Markup:
    return highlight(source, filename)


def markdown(text: str) -> Markup:
    return Markup(_MARKDOWN.render(text))


def pygments_css() -> str:
    return HtmlFormatter(cssclass="hl").get_style_defs(".hl")
