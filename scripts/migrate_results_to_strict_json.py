"""Rewrite the `NaN`, `Infinity` and `-Infinity` tokens of JSON files as `null`: strict JSON (RFC 8259).

    python scripts/migrate_results_to_strict_json.py [dry_run=true] PATH [PATH ...]

Result files written before 2026-11-27 (`json.dump(..., allow_nan=True)`) hold these tokens where a number
was not finite: a score over a set with no shapes (NaN), the error measures of an output holding NaN/Inf
(Infinity). JavaScript's `JSON.parse` and most non-Python readers refuse them; the scorer now writes null
(scoring/result.py). A PATH is a JSON file or a folder searched recursively for `*.json` (hidden ones
skipped). Only the tokens change: every other byte of a file stays as it was (the scorer's `indent=1`
layout included), and tokens inside strings ("NaN/Inf elements") are left alone.

A file is rewritten only after its new text parses strictly and equals the old one with each non-finite
number as null; it is written to a temporary file beside it, fsynced, and renamed over it (its mode kept),
so a file is never lost or left half written. Prints one line per changed file (the fields now null) and a
summary. dry_run=true prints the same and writes nothing. Exit status: 0 done, 1 a file could not be read
or rewritten (named, the others still done), 2 a usage error.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import tempfile
from pathlib import Path

# A JSON string (consumed whole, so that a token inside one is never touched) or a non-finite number token.
_STRING_OR_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN')
_SHOWN_FIELDS = 4  # the changed fields printed per file; the rest are counted


class UsageError(Exception):
    pass


def strict_text(text: str) -> tuple[str, int]:
    """(the text with each NaN/Infinity/-Infinity token outside strings as null, how many were replaced)."""
    replaced = 0

    def replace(match: re.Match) -> str:
        nonlocal replaced
        if match.group().startswith('"'):
            return match.group()
        replaced += 1
        return "null"

    return _STRING_OR_TOKEN.sub(replace, text), replaced


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def loads_strict(text: str):
    """json.loads that refuses NaN, Infinity and -Infinity (Python's json accepts them by default)."""
    return json.loads(text, parse_constant=_reject_constant)


def nulled_fields(old, new, at: str = "") -> list[str]:
    """The JSON paths where `old` held a non-finite number and `new` null; ValueError at any other difference."""
    if isinstance(old, float) and not math.isfinite(old):
        if new is not None:
            raise ValueError(f"{at or '(top)'}: {old} became {new!r}, expected null")
        return [at or "(top)"]
    if isinstance(old, dict) and isinstance(new, dict) and list(old) == list(new):
        return [f for key in old for f in nulled_fields(old[key], new[key], f"{at}.{key}" if at else key)]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [f for i, (a, b) in enumerate(zip(old, new)) for f in nulled_fields(a, b, f"{at}[{i}]")]
    if type(old) is not type(new) or old != new:
        raise ValueError(f"{at or '(top)'}: {old!r} became {new!r}: the rewrite changed more than the tokens")
    return []


def _replace_file(path: Path, text: str) -> None:
    """Write `text` over `path` atomically: temp file beside it, fsync, rename, the folder fsynced."""
    mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def migrate_file(path: Path, dry_run: bool = False) -> list[str]:
    """The fields of one file rewritten as null ([] when it was strict already); ValueError when unreadable."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
        old = json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"is not readable JSON ({error}): left as it is") from None
    new_text, replaced = strict_text(text)
    if not replaced:
        return []
    fields = nulled_fields(old, loads_strict(new_text))
    if len(fields) != replaced:
        raise ValueError(f"{replaced} tokens replaced but {len(fields)} fields became null: left as it is")
    if not dry_run:
        _replace_file(path, new_text)
    return fields


def json_files(paths: list[str]) -> list[Path]:
    files = []
    for name in paths:
        path = Path(name)
        if not path.exists():
            raise UsageError(f"{name} does not exist")
        files += (
            [path]
            if path.is_file()
            else sorted(
                p
                for p in path.rglob("*.json")
                if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        )
    return files


def parse_args(argv: list[str]) -> tuple[bool, list[str]]:
    dry_run, paths = False, []
    for arg in argv:
        key, eq, value = arg.partition("=")
        if eq and key == "dry_run":
            if value not in ("true", "false"):
                raise UsageError(f"dry_run={value}: expected dry_run=true or dry_run=false")
            dry_run = value == "true"
        elif arg.startswith("-") or (eq and not Path(arg).exists()):
            raise UsageError(f"unknown option {arg!r}: the only option is dry_run=true (help prints the usage)")
        else:
            paths.append(arg)
    if not paths:
        raise UsageError("no PATH given: name JSON files or folders (help prints the usage)")
    return dry_run, paths


def parse_command(argv: list[str], usage: str) -> tuple[bool, list[Path]] | int:
    """(dry_run, the JSON files named), or the exit status where there is nothing to do: 0 after printing
    `usage` for help, 2 after a usage error."""
    if any(a in ("help", "-h", "--help") for a in argv):
        print(usage.strip())
        return 0
    try:
        dry_run, paths = parse_args(argv)
        return dry_run, json_files(paths)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def main(argv: list[str]) -> int:
    command = parse_command(argv, __doc__)
    if isinstance(command, int):
        return command
    dry_run, files = command
    changed, tokens, failed = 0, 0, 0
    for path in files:
        try:
            fields = migrate_file(path, dry_run)
        except (OSError, ValueError) as error:
            print(f"{path}: {error}", file=sys.stderr)
            failed += 1
            continue
        if fields:
            changed, tokens = changed + 1, tokens + len(fields)
            more = f" and {len(fields) - _SHOWN_FIELDS} more" if len(fields) > _SHOWN_FIELDS else ""
            print(f"{path}: {len(fields)} non-finite number(s) -> null: {', '.join(fields[:_SHOWN_FIELDS])}{more}")
    verb = "would rewrite" if dry_run else "rewrote"
    print(
        f"{verb} {changed} of {len(files)} JSON file(s) ({tokens} token(s) -> null)"
        + (f"; {failed} could not be read or rewritten (above)" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
