"""`python -m board [results=results] [out=site] [strict=false] ...`: build the static site.

Exit status: 0 built (bad files, if any, were reported and skipped), 1 strict mode found bad files or
the build could not run, 2 a usage error (an unknown key or bad value, a results= or problems= folder that
does not exist, or an out= folder the build must not own). Problems are printed as one line each, never a
traceback. `help`, -h or --help anywhere prints every key (scoring/options.py's rules).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .config import ConfigError, help_text, parse_args
from .issues import BuildError


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(a in ("help", "-h", "--help") for a in argv):
        print(help_text())
        return 0
    try:
        config = parse_args(argv)
        for key, folder in (("results", config.results), ("problems", config.problems)):
            if folder and not Path(folder).is_dir():
                raise ConfigError(f"{key}={folder}: no such folder; pass {key}=PATH (run `python -m board help`)")
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from .builder import build  # pandas and plotly load only for a real build

    log = (
        (lambda line: print(line, file=sys.stderr))
        if not config.quiet
        else (lambda line: print(line, file=sys.stderr) if line.startswith("skipped") else None)
    )
    from .output import UnsafeOutput

    try:
        report = build(config, log=log)
    except UnsafeOutput as error:  # a usage error: the folder named by out= is not one to write into
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(
        f"built {report.out}/ from {report.runs} run(s): {report.pages} files, run pages rendered "
        f"{report.run_pages_rendered}, kept {report.run_pages_kept}; {report.invalid_results} result file(s) "
        f"skipped as invalid ({len(report.issues)} problem(s) in all input files); "
        f"{report.cpu_skipped} CPU-profile result(s) left out; {report.seconds:.1f} s"
    )
    return 0
