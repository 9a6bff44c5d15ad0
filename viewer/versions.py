"""Format versions: which versions of each CLI's transcript this viewer was written and checked
against, and the note a page shows for one it does not know.

A version outside the known range is not refused: the parser still reads every record it
recognises and keeps the rest as raw events. The note tells the reader that fields may have moved,
so a missing count reads as "not understood", not as zero.
"""

from __future__ import annotations

from .builder import Builder


def major(version: str) -> str:
    return version.strip().lstrip("vV").split(".")[0]


def note_version(b: Builder, label: str, version: str, known_majors: tuple[str, ...]) -> None:
    """Record the version the transcript names; warn on a major version not in `known_majors`."""
    if not version:
        return
    b.format_version = b.format_version or version
    if major(version) not in known_majors:
        known = ", ".join(f"{m}.x" for m in known_majors)
        b.warnings.append(
            f"{label} {version}: not a version this viewer knows (it reads {known}); "
            "records it does not recognise are shown raw, and counts it cannot find are not recorded"
        )


def version_tuple(version: str) -> tuple[int, ...] | None:
    """`0.104.0` -> (0, 104, 0); None for a version with no leading number."""
    parts = []
    for piece in version.strip().lstrip("vV").split("."):
        digits = "".join(ch for ch in piece if ch.isdigit()) if piece[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


def note_checked_range(b: Builder, label: str, version: str, lowest: tuple[int, int], highest: tuple[int, int]) -> None:
    """Record the CLI version; warn when its major.minor is outside the range this viewer was
    checked against (inclusive), e.g. Codex 0.104 against 0.40-0.69."""
    if not version or b.format_version:
        return
    b.format_version = version
    parsed = version_tuple(version)
    if parsed is None:
        return
    major_minor = (parsed + (0,))[:2]
    if not lowest <= major_minor <= highest:
        checked = f"{lowest[0]}.{lowest[1]}-{highest[0]}.{highest[1]}"
        b.warnings.append(
            f"{label} {version}: outside the versions this viewer was checked against ({checked}); "
            "records it does not recognise are listed at the end, and counts it cannot find are not recorded"
        )


# The CLI versions each parser was checked against (docs/viewer.md, "Formats checked again").
CLAUDE_CODE_CHECKED = ((1, 0), (2, 1))
CODEX_CHECKED = ((0, 40), (0, 69))
