"""`python -m scoring.verify PATH [PATH ...]`: check result files as the site build does, before trusting them.

For anyone who downloads result files: the same checks as the site's (scoring/result_checks.py: types,
fractions in 0..1, each shape's roofline numbers from its timing, the geomean score from the shapes'
fractions, statuses). A PATH is a result file, or a folder searched recursively for `*.json` files
(hidden ones skipped); in a folder, JSON files that are not results (another `schema`, such as a corpus
summary, or not a JSON object) are counted and left out, while a file named on the command line is
always checked. A result these checks pass is then checked against the published JSON Schema,
scoring/schema/ceiling.result-1.schema.json (scoring/result_schema.py). Torch-free.

Prints one line per problem (file, field, fix) and a summary line. Exit status: 0 every result file is
valid, 1 some are not, 2 a usage error (no PATH, a PATH that does not exist, no result file found).
"""

from __future__ import annotations

import sys
from pathlib import Path

from scoring.result_checks import Issue, check_result, read_json

USAGE = """usage: python -m scoring.verify PATH [PATH ...]

Checks result files (ceiling.result/1) as the site build does: field types, every fraction a finite
number in 0..1, each shape's fraction, TFLOPS and GB/s against its timing and the file's peak row, each
system's score against the geomean of its shapes' fractions, statuses from the known set; then, on a
result those checks pass, the published JSON Schema (scoring/schema/ceiling.result-1.schema.json).

  PATH    a result file, or a folder searched recursively for *.json result files
          (in a folder, JSON files with another schema are left out and counted)

help, -h or --help anywhere prints this; there are no options (an argument starting with - is a usage error).
Exit status: 0 all valid, 1 some invalid, 2 usage error (one line: no PATH, a PATH that does not exist)."""


class UsageError(Exception):
    pass


def _is_other_file(data) -> bool:
    """A readable JSON file that says it is something else: not an object, or another schema."""
    if not isinstance(data, dict):
        return True
    schema = data.get("schema")
    return isinstance(schema, str) and not schema.startswith("ceiling.result/")


def _json_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*.json")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def _schema_issues(data, file: str) -> list[Issue]:
    """The published schema's verdict on a result the value checks passed (their issues, once per field, come
    first; the schema adds what they do not read: provenance, check and timing records, seeds, ...)."""
    from scoring.result_schema import schema_issues  # jsonschema only once a result is checked, not for `help`

    try:
        return schema_issues(data, file)
    except ModuleNotFoundError as missing:  # e.g. a GPU image that cannot fetch packages: say so, claim nothing
        raise UsageError(
            f"the schema check needs {missing.name}, which is not installed here: install it "
            "(pip install jsonschema, or bash scripts/setup.sh); no file was judged"
        ) from None


def verify(paths: list[str]) -> tuple[int, int, list[Issue], int]:
    """(result files checked, invalid ones, their issues, other JSON files left out)."""
    if not paths:
        raise UsageError("no PATH given: name result files or folders (python -m scoring.verify help)")
    checked, invalid, left_out, issues = 0, 0, 0, []
    for name in paths:
        if name.startswith("-"):  # the one rule of every command (scoring/options.py): no unknown option passes
            raise UsageError(
                f"{name}: not an option of scoring.verify, which takes only result files and folders "
                "(python -m scoring.verify help)"
            )
        path = Path(name)
        if not path.exists():
            raise UsageError(f"{name} does not exist; give a result file or a folder of them (e.g. results/)")
        for file in [path] if path.is_file() else _json_files(path):
            data, problems = read_json(file)
            if not problems and path.is_dir() and _is_other_file(data):
                left_out += 1
                continue
            problems = problems or check_result(data, str(file)) or _schema_issues(data, str(file))
            checked += 1
            invalid += bool(problems)
            issues += problems
    if checked == 0:
        raise UsageError(
            f"no result files under {', '.join(paths)}"
            + (f" ({left_out} other JSON file(s) left out)" if left_out else "")
        )
    return checked, invalid, issues, left_out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("help", "-h", "--help") for a in argv):
        print(USAGE)
        return 0
    try:
        checked, invalid, issues, left_out = verify(argv)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for issue in issues:
        print(issue)
    other = f"; {left_out} other JSON file(s) left out" if left_out else ""
    print(
        f"checked {checked} result file(s): {checked - invalid} valid, {invalid} invalid "
        f"({len(issues)} problem(s)){other}"
    )
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
