"""The viewer's command-line options, on the project's shared `key=value` parser
(`scoring/options.py`, torch-free), plus the GNU spellings the viewer always took
(`--out FILE`, `-o FILE`, `--summary`), and transcript paths as bare words (`-` is stdin)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from scoring.options import OptionError, help_text, opt, parse

from .parsers import PARSERS

COMMAND = "python -m viewer"
USAGE = f"""usage: {COMMAND} PATH... [key=value ...]

Renders agent transcripts as self-contained HTML pages. PATH is a transcript file, a session or run
folder, or - for standard input; several paths (or a folder of several sessions) also give an index
page linking each session's page. `-o FILE` is out=FILE (the key rules are at the end).
`{COMMAND} help` prints this. Exit status: 0 written, 1 an input that is not a transcript (no page
written), 2 a usage error (unknown key, missing file, empty folder)."""


@dataclass(frozen=True)
class ViewerOptions:
    out: str = opt(
        "",
        "output HTML file (unset: <file>.html beside the file, <run dir>/transcript.html); "
        "with several sessions, the index page (unset: index.html in the folder), pages in <index>_pages/",
    )
    format: str = opt("", f"force the transcript format (unset: detected): {', '.join(sorted(PARSERS))}")
    run_dir: str = opt("", "run directory whose artifacts get tabs (unset: PATH itself when it is a run directory)")
    title: str = opt("", "page title (unset: harness · model · session)")
    summary: bool = opt(False, "print each session's metadata and normalised tokens as JSON; write no page")


_BOOL_KEYS = {f.name for f in fields(ViewerOptions) if f.type == "bool"}
_SHORT = {"-o": "out"}


class UsageError(ValueError):
    pass


def split_arguments(argv: list[str]) -> tuple[list[str], ViewerOptions]:
    """(paths, options) from the command line; raises UsageError naming the argument and the fix."""
    paths: list[str] = []
    pairs: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg == "-" or not (arg.startswith("-") or "=" in arg):
            paths.append(arg)
            continue
        key, has_value, value = arg.lstrip("-").partition("=")
        key = _SHORT.get(arg, key).replace("-", "_")
        if not has_value and arg.startswith("-"):
            if key in _BOOL_KEYS:
                value = "true"
            elif index < len(argv):
                value, index = argv[index], index + 1
            else:
                raise UsageError(f"{arg} needs a value: write {key}=VALUE; run `{COMMAND} help` for the keys")
        pairs.append(f"{key}={value}")
    try:
        options = parse(ViewerOptions, pairs, COMMAND, error=UsageError)
    except OptionError as error:
        raise UsageError(str(error)) from None
    if options.format and options.format not in PARSERS:
        raise UsageError(f"format={options.format!r}: choose one of {', '.join(sorted(PARSERS))}")
    if not paths:
        raise UsageError(
            f"no transcript given: {COMMAND} PATH (a file, a folder, or - for stdin); run `{COMMAND} help`"
        )
    return paths, options


def usage_text() -> str:
    return help_text(ViewerOptions, USAGE)
