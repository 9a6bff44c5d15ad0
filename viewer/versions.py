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
