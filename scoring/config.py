"""The scoring run's configuration: one frozen dataclass, parsed from `key=value` arguments.

Every field has a default and a help line; `python -m scoring.run help` prints them all. A snapshot of
the whole config is written into every result, so a result says exactly how it was produced.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields

from scoring.spec import suggest

SHAPE_CHOICES = ("visible", "held_out", "property", "all")
LINE_CHOICES = ("eager", "compiled", "library")


class ConfigError(ValueError):
    pass


def _opt(default, help_text: str, choices: tuple = ()):
    return field(default=default, metadata={"help": help_text, "choices": choices})


@dataclass(frozen=True)
class RunConfig:
    problem: str = _opt("", "problem to score (a folder name under problems/)")
    solution: str = _opt("", "path to the solution file; empty = the problem's house kernel (solutions/house.py)")
    shapes: str = _opt("all", "which shapes: visible, held_out, property or all", SHAPE_CHOICES)
    device: str = _opt("auto", "auto (a GPU if torch sees one, else the CPU profile), cpu, cuda or cuda:N")
    lines: str = _opt("eager,compiled,library", "reference lines measured in the same run (comma list, or none)")
    audits: bool = _opt(True, "run hardware-counter audits (ncu) where the problem declares them")
    seed: int = _opt(0, "public seed (mixed with a per-run secret for the inputs)")
    seed_secret: str = _opt("", "replay a run: the secret seed (hex) recorded in its result; empty = a fresh one")
    check_seeds: int = _opt(3, "independent weight/input draws checked per shape before timing")
    timed_check_rate: float = _opt(0.05, "probability that a timed call's output is also checked")
    warmup_s: float = _opt(0.3, "minimum warm-up time per shape (seconds), so clocks settle")
    min_calls: int = _opt(10, "minimum timed calls per shape")
    max_calls: int = _opt(400, "maximum timed calls per shape")
    target_rse: float = _opt(0.005, "stop timing once the median's relative standard error is below this")
    budget_s: float = _opt(15.0, "timing budget per shape (seconds)")
    import_timeout_s: float = _opt(600.0, "limit for importing the solution (seconds)")
    shape_timeout_s: float = _opt(600.0, "limit for one shape: checks, compilation, warm-up and timing (seconds)")
    peak_tflops: float | None = _opt(None, "override the dense peak TFLOPS of the problem's precision")
    peak_gbps: float | None = _opt(None, "override the peak memory bandwidth (GB/s)")
    out: str = _opt("results", "directory results are written under (<out>/<hardware>/<run_id>.json)")
    agent: str = _opt("", "JSON file with the agent metadata of this solution (harness, model, effort, ...)")
    progress: bool = _opt(True, "print per-shape progress on stderr")

    def line_names(self) -> tuple[str, ...]:
        if self.lines.strip() in ("", "none"):
            return ()
        return tuple(name.strip() for name in self.lines.split(",") if name.strip())

    def snapshot(self) -> dict:
        return dataclasses.asdict(self)


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _convert(name: str, raw: str, kind: str):
    try:
        if kind == "bool":
            lowered = raw.lower()
            if lowered in _TRUE | _FALSE:
                return lowered in _TRUE
            raise ValueError
        if kind == "int":
            return int(raw)
        if kind in ("float", "float | None"):
            return None if raw.lower() in ("", "none") else float(raw)
        return raw
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected {kind.replace(' | None', '')}") from None


def parse_args(argv: list[str]) -> RunConfig:
    """`key=value` arguments (a bare `problem` name is accepted as the first argument too)."""
    known = {f.name: f for f in fields(RunConfig)}
    values: dict = {}
    for position, arg in enumerate(argv):
        if "=" not in arg:
            if position == 0 and not arg.startswith("-"):
                values["problem"] = arg
                continue
            raise ConfigError(f"'{arg}' is not key=value; run `python -m scoring.run help` for the keys")
        key, raw = arg.split("=", 1)
        key = key.strip().lstrip("-").replace("-", "_")
        if key not in known:
            raise ConfigError(f"unknown key '{key}'{suggest(key, known)}; run `python -m scoring.run help`")
        value = _convert(key, raw, str(known[key].type))
        choices = known[key].metadata.get("choices")
        if choices and value not in choices:
            raise ConfigError(f"{key}={raw!r}: choose one of {', '.join(choices)}{suggest(str(value), choices)}")
        values[key] = value
    config = RunConfig(**values)
    unknown_lines = [n for n in config.line_names() if n not in LINE_CHOICES]
    if unknown_lines:
        raise ConfigError(f"lines: unknown line '{unknown_lines[0]}'{suggest(unknown_lines[0], LINE_CHOICES)}; "
                          f"use a comma list of {', '.join(LINE_CHOICES)} or none")
    return config


def help_text() -> str:
    rows = ["python -m scoring.run problem=NAME [key=value ...]", "", "keys (default in brackets):"]
    for f in fields(RunConfig):
        default = f.default if f.default not in ("", None) else "-"
        rows.append(f"  {f.name:<17} {f.metadata['help']} [{default}]")
    rows += ["", "python -m scoring.run list       lists the problems",
             "python -m scoring.run help       prints this"]
    return "\n".join(rows)
