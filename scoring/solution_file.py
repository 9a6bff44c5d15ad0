"""Reading a solution file in the grading parent, before any worker is started. Torch-free.

The parent reads the file whole (its LABEL, and this check) and the static audit in the worker reads it as
UTF-8 text (scoring/import_audit.py), so a file that is not plain Python source in UTF-8 is refused here
with one line saying why, and recorded as the solution's import error like any failed import: binary data,
text in another encoding (or one that declares another: the interpreter would then read other text than
the audit), more source than MAX_SOURCE_BYTES, or a file Python will not compile. Nothing is executed.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass
from pathlib import Path

# 1 MiB: the largest kernel in the repository (problems/w4a16_gemm/solutions/house.py, CUDA source inline)
# is 57 KB, so 1 MiB leaves room for 18 of them; a file past it is data (a table of answers, a binary),
# not a kernel, and the parent would hold and parse it whole before any isolation.
MAX_SOURCE_BYTES = 1 << 20
UTF8_NAMES = ("utf-8", "utf-8-sig")  # tokenize's normalised names: no declaration, a declaration, or a BOM


class UnreadableSolution(Exception):
    """The file is not Python source the scorer can read; the message names the file and the problem."""


@dataclass(frozen=True)
class SolutionSource:
    tree: ast.Module

    def string_constant(self, name: str) -> str | None:
        """A module-level `NAME = "..."` (such as LABEL), read from the syntax tree, never by importing."""
        for node in self.tree.body:
            named = isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
            if named and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
        return None


def _mib(size_bytes: int) -> str:
    return f"{size_bytes / (1 << 20):.3g} MiB"


def read_solution(path: Path) -> SolutionSource:
    """The file's syntax tree, once it is known to be UTF-8 Python source that compiles; raises
    UnreadableSolution otherwise."""

    def refuse(why: str) -> UnreadableSolution:
        return UnreadableSolution(f"{path}: {why}")

    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_SOURCE_BYTES + 1)  # never more than the limit, however large the file
            size_bytes = max(len(raw), f.seek(0, io.SEEK_END))
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror or exc})") from None
    if size_bytes > MAX_SOURCE_BYTES:
        raise refuse(f"{_mib(size_bytes)} ({size_bytes:,} bytes) of source, over the {_mib(MAX_SOURCE_BYTES)} limit")
    nul_at = raw.find(b"\0")
    if nul_at >= 0:
        raise refuse(f"binary, not Python source (a NUL byte at byte {nul_at})")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(f"not UTF-8 text at byte {exc.start} ({exc.reason})") from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:  # an unknown encoding in the declaration
        raise refuse(f"SyntaxError line {exc.lineno or 1}: {exc.msg}") from None
    if encoding not in UTF8_NAMES:
        raise refuse(f"declares the source encoding '{encoding}'; a solution must be UTF-8")
    try:
        with warnings.catch_warnings():  # an invalid escape's warning belongs in the worker's log, not here
            warnings.simplefilter("ignore")
            tree = ast.parse(raw, filename=str(path))
            compile(
                tree, str(path), "exec", dont_inherit=True
            )  # errors the parser lets by: 'return' outside a function
    except SyntaxError as exc:
        raise refuse(f"{type(exc).__name__} line {exc.lineno}: {exc.msg}") from None
    except (RecursionError, MemoryError) as exc:  # CPython's parser gives up on deep nesting with either
        raise refuse(f"too deeply nested for Python's parser ({type(exc).__name__})") from None
    return SolutionSource(tree)
