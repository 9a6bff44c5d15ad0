"""Static audit of the solution's own source files: forbidden imports and forbidden operators by name (X21).

Run-time interception (scoring/guard.py) sees every spelling of an aten operator, but only on the calls
it watches; a solution that behaves differently when watched (X13) still has to *name* the operator
somewhere. This audit, run by the judge, reads the syntax tree (never a substring grep) of the solution's
file, of every module of its folder that file imports by a constant name (`sibling_imports`, followed
from module to module), and of every file of the folder the worker says it loaded, and reports:

* imports of forbidden modules (`import flash_attn`, `from vllm import ...`, `importlib.import_module("x")`,
  `__import__("x")` with a constant name);
* attribute accesses whose name is a forbidden operator (`torch._scaled_mm`, `F.scaled_dot_product_attention`,
  `x.topk`, `torch.ops.aten.mm.default`), except on Triton's modules (`tl.dot` is Triton, not aten);
* `getattr(obj, "name")` with a constant forbidden name;
* any name that decides whether bytecode rather than the audited source runs (`sys.pycache_prefix`, ...).

Names assembled at run time (`getattr(torch, "_scaled" + "_mm")`, a module imported by a computed name)
are left to the run-time interception, which lives in the solution's process (docs/integrity.md, X21).
"""

from __future__ import annotations

import ast
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

TRITON_MODULES = ("triton", "triton.language")
# Names that decide whether bytecode rather than the audited source runs (the worker looks for bytecode in a
# fresh folder of its own; a solution that points it back at bytecode it ships is refused).
BYTECODE_CONTROL = frozenset(
    {
        "pycache_prefix",
        "dont_write_bytecode",
        "SourcelessFileLoader",
        "_code_to_hash_pyc",
        "_code_to_timestamp_pyc",
        "cache_from_source",
    }
)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _module_matches(module: str, forbidden: frozenset[str]) -> bool:
    parts = module.split(".")
    return any(".".join(parts[: i + 1]) in forbidden for i in range(len(parts)))


class _Visitor(ast.NodeVisitor):
    def __init__(self, path: str, forbidden_imports: frozenset[str], forbidden_ops: frozenset[str]):
        self.path = path
        self.forbidden_imports = forbidden_imports
        self.forbidden_ops = forbidden_ops
        self.triton_aliases: set[str] = set()
        self.findings: list[Finding] = []

    def _add(self, node: ast.AST, what: str) -> None:
        self.findings.append(Finding(self.path, getattr(node, "lineno", 0), what))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name in TRITON_MODULES:
                self.triton_aliases.add(alias.asname or alias.name.split(".")[0])
            if _module_matches(alias.name, self.forbidden_imports):
                self._add(node, f"imports forbidden module '{alias.name}'")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            full = f"{module}.{alias.name}" if module else alias.name
            if full in TRITON_MODULES:
                self.triton_aliases.add(alias.asname or alias.name)
            if _module_matches(module, self.forbidden_imports) or _module_matches(full, self.forbidden_imports):
                self._add(node, f"imports forbidden module '{full}'")
            elif alias.name in BYTECODE_CONTROL:
                self._add(
                    node,
                    f"controls which bytecode runs ({alias.name} from '{module}'): the code that runs "
                    "must be the source audited",
                )
            elif alias.name in self.forbidden_ops and not module.startswith("triton"):
                self._add(node, f"imports forbidden operator '{alias.name}' from '{module}'")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in self.forbidden_ops and not self._on_triton(node.value) and not _backend_setting(node):
            self._add(node, f"names forbidden operator '{node.attr}' ({ast.unparse(node)})")
        if node.attr in BYTECODE_CONTROL:
            self._add(
                node,
                f"controls which bytecode runs ({ast.unparse(node)}): the code that runs must be the source audited",
            )
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in BYTECODE_CONTROL:
            self._add(node, f"controls which bytecode runs ({node.id}): the code that runs must be the source audited")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = (
            node.func.id
            if isinstance(node.func, ast.Name)
            else node.func.attr
            if isinstance(node.func, ast.Attribute)
            else ""
        )
        constant = (
            node.args[1]
            if name == "getattr" and len(node.args) >= 2
            else node.args[0]
            if name in ("import_module", "__import__") and node.args
            else None
        )
        if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
            if name == "getattr" and constant.value in self.forbidden_ops:
                self._add(node, f"names forbidden operator '{constant.value}' through getattr")
            elif name != "getattr" and _module_matches(constant.value, self.forbidden_imports):
                self._add(node, f"imports forbidden module '{constant.value}' dynamically")
        self.generic_visit(node)

    def _on_triton(self, value: ast.expr) -> bool:
        root = value
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in self.triton_aliases


def _backend_setting(node: ast.Attribute) -> bool:
    """`torch.backends.cuda.matmul` (the namespace of the allow_tf32 settings) names no operator."""
    return (
        isinstance(node.value, ast.Attribute)
        and node.value.attr == "cuda"
        and isinstance(node.value.value, ast.Attribute)
        and node.value.value.attr == "backends"
    )


MAX_SOURCE_BYTES = 8 << 20


def read_source(path: Path) -> str:
    """A source file's text, read only if it is a regular file (no link followed, never a FIFO or a device
    that would block or stream forever) of a bounded size; OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if info.st_size > MAX_SOURCE_BYTES:
            raise OSError(f"{path.name} is larger than {MAX_SOURCE_BYTES >> 20} MiB")
        return os.read(fd, MAX_SOURCE_BYTES + 1).decode()
    finally:
        os.close(fd)


AUDIT_RECURSION_LIMIT = 20_000  # an honest expression of a few thousand terms nests that deep in the tree


def audit_files(
    paths: list[Path], forbidden_imports: tuple[str, ...], forbidden_ops: tuple[str, ...], root: Path | None = None
) -> list[Finding]:
    findings: list[Finding] = []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, AUDIT_RECURSION_LIMIT))
    try:
        for path in paths:
            shown = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
            try:
                tree = ast.parse(read_source(path), filename=str(path))
                visitor = _Visitor(shown, frozenset(forbidden_imports), frozenset(forbidden_ops))
                visitor.visit(tree)
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError, RecursionError, MemoryError) as exc:
                findings.append(Finding(shown, 0, f"cannot be audited: {type(exc).__name__}: {str(exc)[:200]}"))
                continue
            findings.extend(visitor.findings)
    finally:
        sys.setrecursionlimit(limit)
    return findings


def loaded_files_under(folder: Path, modules: dict) -> list[Path]:
    """Source files of the loaded modules (e.g. sys.modules) that live under `folder`."""
    folder = folder.resolve()
    files = set()
    for module in list(modules.values()):
        file = getattr(module, "__file__", None)
        if file and file.endswith(".py") and Path(file).resolve().is_relative_to(folder):
            files.add(Path(file).resolve())
    return sorted(files)


MODULE_NAME = re.compile(r"\.*[^\W\d]\w*(?:[.:][^\W\d]\w*)*")  # Unicode identifiers; leading dots: relative


def _imported_names(tree: ast.AST) -> set[str]:
    """Top-level module names a syntax tree imports, or may: import statements, and the first part of every
    string constant shaped like a module name (`import_module(name="x")`, `runpy.run_module("x")`,
    `pkgutil.resolve_name("x:f")`, whatever function takes it). Which strings are modules is decided by
    what exists beside the file (sibling_imports) or by the repository's package names."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            # `from . import x` names siblings too (the solution can make itself a package at run time).
            names |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.fullmatch(node.value):
            names.add(re.split(r"[.:]", node.value.lstrip("."))[0])
    return names


def _statement_imports(tree: ast.AST) -> set[str]:
    return {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
    }


IMPORTING_CALLS = frozenset({"import_module", "__import__", "run_module", "resolve_name", "locate", "find_spec"})


def _imported_by_call(tree: ast.AST) -> set[str]:
    """First parts of the constant strings given, by position or keyword, to a function that imports."""
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called in IMPORTING_CALLS:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and MODULE_NAME.fullmatch(arg.value):
                    names.add(re.split(r"[.:]", arg.value)[0])
    return names


def _dotted_strings(tree: ast.AST) -> set[str]:
    """First parts of the string constants that are dotted or colon names (`"problems.x.y"`, `"pkg:func"`)."""
    return {
        re.split(r"[.:]", node.value)[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and MODULE_NAME.fullmatch(node.value)
        and re.search(r"[.:]", node.value)
    }


def _named_files(tree: ast.AST) -> set[str]:
    """String constants that name a .py file (`runpy.run_path("x.py")`, `exec(open(here / "x.py").read())`)."""
    return {
        node.value if isinstance(node.value, str) else node.value.decode(errors="replace")
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, (str, bytes))
        and (node.value.endswith(".py") if isinstance(node.value, str) else node.value.endswith(b".py"))
    }


def _inside(path: Path, folder: Path) -> Path | None:
    """`path` resolved, if it lies inside `folder` (links followed only there); None otherwise."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return None
    return real if real.is_relative_to(folder) else None


def sibling_imports(solution: Path, folder: Path) -> list[Path]:
    """The source files of `folder` that `solution` imports, directly or through one another: a module
    `name.py` beside it, every file of a package folder `name/`, or a .py file of the folder it names in a
    string (run or exec'd by path). Read without importing anything; a name computed at run time is not
    followed (the residual, docs/integrity.md X21)."""
    folder = folder.resolve()
    found: set[Path] = set()
    queue = [solution.resolve()]
    while queue:
        path = queue.pop()
        try:
            tree = ast.parse(read_source(path), filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError, RecursionError, MemoryError):
            continue  # the audit itself reports a file it cannot read
        named = [folder / text for text in _named_files(tree) if not Path(text).is_absolute()]
        for name in [*_imported_names(tree), *named]:
            if isinstance(name, Path):
                candidates = [name] if name.is_file() else []
            else:
                module, package = folder / f"{name}.py", folder / name
                # A folder is a package with or without __init__.py (a namespace package imports too).
                real = _inside(package, folder)  # a link to a folder inside the solution's folder is followed
                candidates = (
                    [module]
                    if module.is_file()
                    else sorted(real.rglob("*.py"))
                    if real is not None and real.is_dir()
                    else []
                )
            for candidate in candidates:
                try:
                    candidate = candidate.resolve()
                except (OSError, RuntimeError):  # a link loop: nothing to audit there, and nothing runs it
                    continue
                if candidate.is_relative_to(folder) and candidate not in found:
                    found.add(candidate)
                    queue.append(candidate)
    return sorted(found)


# The benchmark's own packages: a solution that imports them runs the grader's or the house's code as its own.
REPOSITORY_PACKAGES = frozenset({"problems", "scoring", "adversarial", "harnesses", "board", "viewer", "scripts"})


def repository_imports(paths: list[Path], root: Path) -> list[Finding]:
    """Imports, by a constant name, of the benchmark's own packages (the house kernel is one import away:
    `from problems.fp8_gemm.solutions.house import run`)."""
    findings = []
    for path in paths:
        try:
            tree = ast.parse(read_source(path), filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError, RecursionError, MemoryError):
            continue  # audit_files reports it
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        # Import statements, dotted names in strings ("problems.fp8_gemm.solutions.house:run"), and bare names
        # given to the importing functions; a bare word elsewhere in a string ("scoring") is prose.
        named = _statement_imports(tree) | _dotted_strings(tree) | _imported_by_call(tree)
        for name in sorted(named & REPOSITORY_PACKAGES):
            findings.append(
                Finding(
                    shown,
                    0,
                    f"imports the benchmark's own package '{name}' (a solution runs its "
                    "own code, not the house's or the grader's)",
                )
            )
    return findings
