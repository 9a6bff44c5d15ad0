"""The site build's configuration: one frozen dataclass parsed from `key=value` arguments.

Every field has a default and a help line; `python -m viewer.leaderboard help` prints them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from scoring.spec import suggest


class ConfigError(ValueError):
    pass


def _opt(default, help_text: str):
    return field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class BuildConfig:
    results: str = _opt("results", "folder of result files (<results>/<hardware>/<run_id>.json) and annotations/")
    out: str = _opt("site", "folder the static site is written into")
    problems: str = _opt("", "folder of problem folders; empty = the repository's problems/")
    strict: bool = _opt(False, "fail the build (exit 1) on any bad result or annotation file instead of skipping it")
    cpu: bool = _opt(False, "also rank CPU-profile results (smoke tests whose fractions are not scores)")
    transcripts: bool = _opt(True, "render transcript pages for agent runs through the viewer")
    incremental: bool = _opt(True, "keep run pages whose inputs did not change since the last build")
    jobs: int = _opt(0, "worker processes for run pages; 0 = one per CPU core")
    quiet: bool = _opt(False, "print only problems and the closing summary")


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_args(argv: list[str]) -> BuildConfig:
    known = {f.name: f for f in fields(BuildConfig)}
    values: dict = {}
    for arg in argv:
        if "=" not in arg:
            raise ConfigError(f"'{arg}' is not key=value; run `python -m viewer.leaderboard help` for the keys")
        key, raw = arg.split("=", 1)
        key = key.strip().lstrip("-").replace("-", "_")
        if key not in known:
            raise ConfigError(f"unknown key '{key}'{suggest(key, known)}; run `python -m viewer.leaderboard help`")
        default = known[key].default
        if isinstance(default, bool):
            if raw.lower() not in _TRUE | _FALSE:
                raise ConfigError(f"{key}={raw!r}: expected true or false")
            values[key] = raw.lower() in _TRUE
        elif isinstance(default, int):
            try:
                values[key] = int(raw)
            except ValueError:
                raise ConfigError(f"{key}={raw!r}: expected a whole number") from None
        else:
            values[key] = raw
    return BuildConfig(**values)


def help_text() -> str:
    rows = ["python -m viewer.leaderboard [key=value ...]", "", "keys (default in brackets):"]
    for f in fields(BuildConfig):
        default = f.default if f.default != "" else "-"
        if isinstance(default, bool):
            default = str(default).lower()
        rows.append(f"  {f.name:<12} {f.metadata['help']} [{default}]")
    rows += ["", "python -m viewer.leaderboard help    prints this"]
    return "\n".join(rows)
