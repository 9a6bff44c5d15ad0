"""The 'changes' view's data: every file the run touched, its combined diff and final content.

File contents are tracked through the run where the transcript allows it: a write or a created
file gives the whole content, and later edits are replayed on it as text replacements. When the
content before and after the run are both known, the combined diff is one diff between them;
otherwise it is the changes' own diffs one after another.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from .edits import hunk_replacements, unified
from .model import Event, FileChange, FileSummary


def _replay(content: str, change: FileChange) -> str | None:
    """The content after an edit, or None when the edit does not apply to what we tracked."""
    pairs = change.replacements or hunk_replacements(change.diff)
    if not pairs:
        return None
    for old, new in pairs:
        if old == "":
            return None
        if old not in content:
            # Hunk blocks end with a newline that the file's last line may lack.
            if old.endswith("\n") and old[:-1] in content and content.endswith(old[:-1]):
                old, new = old[:-1], new[:-1] if new.endswith("\n") else new
            else:
                return None
        content = content.replace(old, new) if change.replace_all else content.replace(old, new, 1)
    return content


def summarize(events: Iterable[Event]) -> tuple[FileSummary, ...]:
    by_path: dict[str, list[FileChange]] = {}
    for event in events:
        if event.is_error and all(c.source != "heredoc" for c in event.changes):
            continue  # a failed edit changed nothing (a heredoc may have run before the failure)
        for change in event.changes:
            # A move is filed under its destination path (FileChange.path is the new name).
            by_path.setdefault(change.path, []).append(replace(change, anchor=event.anchor))
    return tuple(_summary(path, changes) for path, changes in sorted(by_path.items()))


def _summary(path: str, changes: list[FileChange]) -> FileSummary:
    first = changes[0]
    initial: str | None = "" if first.action == "create" else first.old_content
    content: str | None = initial
    pieces: list[FileChange] = []
    for change in changes:
        if change.action == "delete":
            content = None
            pieces.append(change)
            continue
        if change.new_content is not None:
            if content is not None and change.source == "content" and change.action == "write":
                # A write over a file whose content we tracked: diff against what it replaced.
                change = replace(change, diff=unified(content, change.new_content, path))
            content = change.new_content
        elif content is None and change.old_content is not None:
            content = _replay(change.old_content, change)
        elif content is not None:
            content = _replay(content, change)
        pieces.append(change)
    if initial is not None and content is not None:
        combined = unified(initial, content, path)
    else:
        combined = "".join(c.diff for c in pieces)
    final = None if changes[-1].action == "delete" else content
    return FileSummary(path, tuple(pieces), combined, final)
