"""The output folder: which folders a build may write into, how files are written, and what it may remove.

A build owns only the files it wrote. It records them in a manifest (`.build-manifest.json`, paths
relative to the output folder) and, on the next build, removes only files that the previous manifest
names and this build did not write again; anything else in the folder (a user's notes, a README) is
never touched. Before writing anything it refuses a folder it must not own: the filesystem root, the
home folder, the repository or the results folder, a folder holding problems/, and any non-empty folder
without a manifest (which no build wrote; a lone README.md, the repository's site/ placeholder, is
allowed). Files are written atomically with mode 0666 less the umask (0644 under the usual 022), since
tempfile.mkstemp makes them 0600 and a page another user cannot read cannot be served; folders are made
0777 less the umask (0755).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .issues import BuildError

MANIFEST = ".build-manifest.json"
PLACEHOLDERS = {"README.md"}  # files a folder may hold before its first build, never written or removed


class UnsafeOutput(BuildError):
    """The output folder is one the build must not write into or prune (the command exits 2)."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


FILE_MODE = 0o666 & ~_umask()


def check_output(out: Path, sources: tuple[Path, ...] = ()) -> None:
    """Raise UnsafeOutput when `out` is a folder the build must not own; return quietly otherwise."""
    resolved = out.resolve()
    if resolved == Path(resolved.anchor):
        raise UnsafeOutput(f"out={out} is the filesystem root; choose a folder of its own, e.g. out=site")
    if resolved == Path.home().resolve():
        raise UnsafeOutput(f"out={out} is the home folder; choose a folder of its own, e.g. out=site")
    if resolved in {s.resolve() for s in sources} or (out / "problems").is_dir():
        raise UnsafeOutput(
            f"out={out} looks like a source folder (the repository, the results or a problems tree); "
            "choose a folder of its own, e.g. out=site"
        )
    if out.exists() and not out.is_dir():
        raise UnsafeOutput(f"out={out} is a file, not a folder; choose a folder, e.g. out=site")
    if out.is_dir() and not (out / MANIFEST).is_file():
        foreign = sorted(p.name for p in out.iterdir() if p.name not in PLACEHOLDERS)
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            raise UnsafeOutput(
                f"out={out} is not empty ({shown}) and no build wrote it (it has no {MANIFEST}); "
                "choose an empty or new folder, e.g. out=site"
            )


def read_manifest(out: Path) -> dict:
    """The previous build's manifest: {"runs": {run_id: {key, facts}}, "files": [relative paths]}; {} if none."""
    try:
        manifest = json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def write_text(path: Path, text: str) -> None:
    """Atomic write (a reader, or a half-finished build, never sees a torn page), world-readable as the umask allows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, FILE_MODE)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_manifest(out: Path, runs: dict, written: set[Path]) -> Path:
    path = out / MANIFEST
    files = sorted({os.path.relpath(p, out) for p in written} - {MANIFEST})
    write_text(path, json.dumps({"runs": runs, "files": files}))
    return path


def prune(out: Path, previous: dict, written: set[Path]) -> list[str]:
    """Remove the files the previous manifest names that this build did not write (then their emptied
    folders, up to `out`); return their relative paths. Nothing the manifest does not name is removed."""
    listed = previous.get("files") if isinstance(previous.get("files"), list) else []
    # Written paths are all `out / ...`, so relpath (a string operation) makes them comparable without
    # resolve(), which cost 20,000 realpath calls at 10,000 runs.
    keep = {os.path.relpath(p, out) for p in written}
    removed = []
    for rel in listed:
        if not isinstance(rel, str) or rel in keep or rel in PLACEHOLDERS or _escapes(rel):
            continue
        path = out / rel
        if path.is_file() and not path.is_symlink():
            path.unlink()
            removed.append(rel)
            _remove_empty_parents(path.parent, out)
    return removed


def _escapes(rel: str) -> bool:
    """A manifest entry that would reach outside the folder (absolute, or through ..): never acted on."""
    return os.path.isabs(rel) or ".." in Path(rel).parts


def _remove_empty_parents(folder: Path, out: Path) -> None:
    while folder != out and out in folder.parents:
        try:
            folder.rmdir()  # only succeeds when empty
        except OSError:
            return
        folder = folder.parent
