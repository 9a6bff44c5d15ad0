"""The site build's configuration: one frozen dataclass parsed from `key=value` arguments.

Every field has a default and a help line; `python -m board help` prints them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.options import OptionError, opt, parse
from scoring.options import help_text as options_help


class ConfigError(OptionError):
    pass


@dataclass(frozen=True)
class BuildConfig:
    results: str = opt("results", "folder of result files (<results>/<hardware>/<run_id>.json) and annotations/")
    out: str = opt("site", "folder the static site is written into")
    problems: str = opt(
        "", "folder of problem folders; empty = $CEILING_PROBLEMS_ROOT, else the repository's problems/"
    )
    strict: bool = opt(
        False, "exit 1 and write nothing if any result or verdict file is invalid, instead of skipping it"
    )
    cpu: bool = opt(False, "also rank CPU-profile results (smoke tests whose fractions are not scores)")
    transcripts: bool = opt(True, "render transcript pages for agent runs through the viewer")
    incremental: bool = opt(True, "keep run pages whose inputs did not change since the last build")
    jobs: int = opt(0, "worker processes for run pages; 0 = one per CPU core")
    quiet: bool = opt(False, "print only problems and the closing summary")


def parse_args(argv: list[str]) -> BuildConfig:
    return parse(BuildConfig, argv, "python -m board", error=ConfigError)


def help_text() -> str:
    return options_help(BuildConfig, "python -m board [key=value ...]") + "\n\npython -m board help    prints this"
