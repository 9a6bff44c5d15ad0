"""Building FileChange values from what the tools recorded: a tool's own diff, old/new strings,
apply_patch text, or a shell heredoc that writes a file.

Diffs are unified-diff text with `---`/`+++` headers, so one renderer highlights them all.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Iterable

from .coerce import as_list, to_int, to_str
from .model import FileChange


def _side(prefix: str, path: str) -> str:
    """`a/rel/path` for relative paths, `a/abs/path` (one slash) for absolute ones."""
    return f"{prefix}/{path.lstrip('/')}"


# difflib can be slow (worse than linear) on very large inputs; past this, say so instead.
DIFF_LIMIT_CHARS = 1_000_000


def unified(old: str, new: str, path: str, context: int = 3) -> str:
    if len(old) + len(new) > DIFF_LIMIT_CHARS:
        return f"{header(path)}@@ too large to diff in the viewer ({len(old):,} -> {len(new):,} characters) @@\n"
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    lines = difflib.unified_diff(old_lines, new_lines, _side("a", path), _side("b", path), n=context)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def header(path: str, old_path: str | None = None) -> str:
    return f"--- {_side('a', old_path or path)}\n+++ {_side('b', path)}\n"


def edit_change(path: str, old: str, new: str, replace_all: bool = False) -> FileChange:
    return FileChange(
        path, "edit", unified(old, new, path), "rebuilt", replacements=((old, new),), replace_all=replace_all
    )


def multi_edit_change(path: str, edits: Iterable[Any]) -> FileChange:
    pairs = tuple((to_str(e.get("old_string")), to_str(e.get("new_string"))) for e in edits if isinstance(e, dict))
    diff = "".join(unified(old, new, path) for old, new in pairs)
    return FileChange(path, "edit", diff, "rebuilt", replacements=pairs)


def write_change(path: str, content: str, action: str = "write") -> FileChange:
    """A whole-file write. The diff is against an empty file until the changes view knows better."""
    return FileChange(path, action, unified("", content, path), "content", new_content=content)


def structured_patch_diff(path: str, hunks: Any) -> str:
    """Claude Code's `structuredPatch` hunks as unified-diff text."""
    if not isinstance(hunks, list) or not hunks:
        return ""
    out = [header(path)]
    for hunk in hunks:
        if not isinstance(hunk, dict):
            continue
        out.append(
            f"@@ -{to_int(hunk.get('oldStart'))},{to_int(hunk.get('oldLines'))} "
            f"+{to_int(hunk.get('newStart'))},{to_int(hunk.get('newLines'))} @@\n"
        )
        for line in as_list(hunk.get("lines")):
            out.append(to_str(line).rstrip("\n") + "\n")
    return "".join(out)


def with_header(path: str, diff: str) -> str:
    """A recorded diff body, given file headers when it has none."""
    if not diff:
        return ""
    if diff.startswith("---") or diff.startswith("diff ") or diff.startswith("Index:"):
        return diff if diff.endswith("\n") else diff + "\n"
    return header(path) + (diff if diff.endswith("\n") else diff + "\n")


def hunk_replacements(diff: str) -> tuple[tuple[str, str], ...]:
    """(old block, new block) per hunk of a unified diff, to replay it on tracked contents."""
    pairs: list[tuple[str, str]] = []
    old: list[str] | None = None
    new: list[str] = []
    for line in diff.splitlines():
        if line.startswith("@@"):
            if old is not None:
                pairs.append(("".join(old), "".join(new)))
            old, new = [], []
        elif old is None or line.startswith("--- ") or line.startswith("+++ "):
            continue
        elif line.startswith("-"):
            old.append(line[1:] + "\n")
        elif line.startswith("+"):
            new.append(line[1:] + "\n")
        elif line.startswith(" ") or line == "":
            old.append(line[1:] + "\n")
            new.append(line[1:] + "\n")
    if old is not None:
        pairs.append(("".join(old), "".join(new)))
    return tuple(p for p in pairs if p[0] or p[1])


# --- apply_patch (Codex) -------------------------------------------------------------------

_PATCH_OP = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")


def parse_apply_patch(text: str) -> list[FileChange]:
    """Codex `*** Begin Patch` text as one FileChange per file it touches."""
    changes: list[FileChange] = []
    op = path = move_to = None
    body: list[str] = []

    def flush() -> None:
        if op is None or path is None:
            return
        if op == "Add":
            content = "".join(line[1:] + "\n" for line in body if line.startswith("+"))
            changes.append(FileChange(path, "create", unified("", content, path), "patch", new_content=content))
        elif op == "Delete":
            changes.append(FileChange(path, "delete", f"--- {_side('a', path)}\n+++ /dev/null\n", "patch"))
        else:
            hunks = []
            for line in body:
                if line.startswith("@@"):
                    hunks.append("@@ @@\n" if line.strip() == "@@" else line + "\n")
                elif line.startswith(("+", "-", " ")) or line == "":
                    if not hunks:
                        hunks.append("@@ @@\n")
                    hunks.append((line or " ") + "\n")
            diff = header(move_to or path, path) + "".join(hunks)
            changes.append(
                FileChange(
                    move_to or path,
                    "move" if move_to else "edit",
                    diff,
                    "patch",
                    replacements=hunk_replacements(diff),
                    move_to=move_to,
                )
            )

    for line in text.splitlines():
        match = _PATCH_OP.match(line)
        if match:
            flush()
            op, path, move_to, body = match.group(1), match.group(2).strip(), None, []
        elif line.startswith("*** Move to: ") and op == "Update":
            move_to = line[len("*** Move to: ") :].strip()
        elif line.startswith("*** End Patch") or line.startswith("*** Begin Patch"):
            flush()
            op = path = None
        elif line.startswith("*** End of File"):
            continue
        elif op is not None:
            body.append(line)
    flush()
    return changes


# --- shell heredocs ----------------------------------------------------------------------------

# `cat > f <<'EOF' ... EOF`, `cat <<EOF > f`, `tee [-a] f <<EOF`, with >> for appends.
_PATH = r"[^\s<>;|&]+"
_HEREDOC = re.compile(
    rf"(?:cat\s*(?:(?P<op1>>>?)\s*(?P<path1>{_PATH})\s*)?|tee(?P<tee_append>\s+-a)?\s+(?P<tee_path>{_PATH})\s*)"
    r"<<-?\s*(?P<q>['\"]?)(?P<tag>[A-Za-z_][A-Za-z0-9_]*)(?P=q)"
    rf"(?:\s*(?P<op2>>>?)\s*(?P<path2>{_PATH}))?[^\n]*\n"
    r"(?P<body>.*?)\n[ \t]*(?P=tag)[ \t]*(?:\n|$)",
    re.DOTALL,
)
_APPLY_PATCH_HEREDOC = re.compile(r"\*\*\* Begin Patch\n.*?\*\*\* End Patch", re.DOTALL)


def shell_writes(command: str) -> list[FileChange]:
    """File writes a shell command makes through heredocs (and apply_patch heredocs)."""
    if "<<" not in command:
        return []
    if "*** Begin Patch" in command:
        return [c for m in _APPLY_PATCH_HEREDOC.finditer(command) for c in parse_apply_patch(m.group(0))]
    changes = []
    for match in _HEREDOC.finditer(command):
        path = match.group("tee_path") or match.group("path1") or match.group("path2")
        op = ">>" if match.group("tee_append") else (match.group("op1") or match.group("op2") or ">")
        if not path or path.startswith("/dev/"):
            continue
        path = path.strip("'\"")
        body = match.group("body") + "\n"
        if op == ">>":
            added = "".join("+" + line + "\n" for line in body.splitlines())
            changes.append(FileChange(path, "edit", header(path) + "@@ append @@\n" + added, "heredoc"))
        else:
            changes.append(FileChange(path, "write", unified("", body, path), "heredoc", new_content=body))
    return changes


def command_text(value: Any) -> str:
    """A shell command recorded as a string or an argv list (`["bash", "-lc", "..."]`)."""
    if isinstance(value, list):
        parts = [to_str(v) for v in value]
        if len(parts) >= 3 and parts[1] in ("-lc", "-c"):
            return parts[2]
        return " ".join(parts)
    return to_str(value)
