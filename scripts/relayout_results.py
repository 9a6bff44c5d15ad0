"""Rewrite result files in the scorer's current layout (scoring/result.py `write_result`): same content, fewer bytes.

    python scripts/relayout_results.py [dry_run=true] PATH [PATH ...]

Until 2026-11-27 the scorer wrote every value on its own line (`json.dump(..., indent=1)`); it now writes a
shape's fields each on one compact line (ONE_LINE_DEPTH), since their per-call arrays are most of a result's
bytes and every GPU call carries the tracked tree within a 64 MiB limit. Since 2026-11-28 it also writes each
system's kernel names once, in a table its shapes index (scoring/kernel_name_table.py): written per shape they
were two fifths of the committed results' bytes. A PATH is a JSON file or a folder
searched recursively for `*.json` (hidden ones skipped); only files of schema `ceiling.result/1` are touched,
and strict JSON only (run scripts/migrate_results_to_strict_json.py first on a file with NaN tokens).

A file is rewritten only after its new text, its kernel names expanded again, is exactly the old value with its
names expanded (keys in the same order); it is
written to a temporary file beside it, fsynced and renamed over it (mode kept), so a file is never lost or left
half written. Prints one line per rewritten file and a summary with the bytes saved; dry_run=true prints the
same and writes nothing. Exit status: 0 done, 1 a file could not be read or rewritten (named, the others still
done), 2 a usage error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scoring.kernel_name_table import expanded, tabulated
from scoring.result import SCHEMA, result_text
from scripts.migrate_results_to_strict_json import _replace_file, loads_strict, parse_command


def _content(value: dict) -> str:
    """A result's content with its kernel names per shape, as text: json.dumps keeps key order, so a reordering
    is a difference."""
    return json.dumps(expanded(value))


def relayout_file(path: Path, dry_run: bool = False) -> int | None:
    """Bytes saved by rewriting one result file (None: not a result, or already in the layout)."""
    try:
        text = path.read_bytes().decode("utf-8")
        value = loads_strict(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"is not strict JSON ({error}): left as it is") from None
    if not isinstance(value, dict) or value.get("schema") != SCHEMA:
        return None
    new_text = result_text(tabulated(value)) + "\n"
    if new_text == text:
        return None
    if _content(json.loads(new_text)) != _content(value):  # the old text is parsed once, above
        raise ValueError("the new layout does not hold the same content: left as it is")
    if not dry_run:
        _replace_file(path, new_text)
    return len(text.encode()) - len(new_text.encode())


def main(argv: list[str]) -> int:
    command = parse_command(argv, __doc__)
    if isinstance(command, int):
        return command
    dry_run, files = command
    rewritten, saved_bytes, failed = 0, 0, 0
    for path in files:
        try:
            saved = relayout_file(path, dry_run)
        except (OSError, ValueError) as error:
            print(f"{path}: {error}", file=sys.stderr)
            failed += 1
            continue
        if saved is not None:
            rewritten += 1
            saved_bytes += saved
            print(f"{path}: {saved} bytes fewer")
    verb = "would rewrite" if dry_run else "rewrote"
    print(f"{verb} {rewritten} of {len(files)} file(s), {saved_bytes / 2**20:.1f} MiB fewer; {failed} unreadable")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
