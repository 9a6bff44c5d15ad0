"""Ceiling's transcript viewer: parse any supported agent transcript into one event model
(`load_transcript`) and render it as one self-contained HTML page (`render_transcript_html`,
`write_transcript_page`). Torch-free; needs only markdown-it-py and Pygments."""

from .load import find_transcript_file, load_transcript
from .model import Event, FileChange, FileSummary, Subagent, TokenUsage, Transcript
from .parsers import PARSERS

FORMATS = tuple(PARSERS)


def render_transcript_html(transcript_or_path, *, run_dir=None, title=None) -> str:
    from .render.page import render_page

    return render_page(transcript_or_path, run_dir=run_dir, title=title)


def write_transcript_page(path, out_path, *, run_dir=None):
    from .render.page import write_page

    return write_page(path, out_path, run_dir=run_dir)


__all__ = [
    "Event",
    "FORMATS",
    "FileChange",
    "FileSummary",
    "Subagent",
    "TokenUsage",
    "Transcript",
    "find_transcript_file",
    "load_transcript",
    "render_transcript_html",
    "write_transcript_page",
]
