"""The scoring run's configuration: one frozen dataclass, parsed from `key=value` arguments.

Every field has a default and a help line; `python -m scoring.run help` prints them all. A snapshot of
the whole config is written into every result, so a result says exactly how it was produced.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from scoring.options import OptionError, opt, parse
from scoring.options import help_text as options_help
from scoring.spec import suggest

SHAPE_CHOICES = ("visible", "held_out", "property", "all")
LINE_CHOICES = ("eager", "compiled", "library")


class ConfigError(OptionError):
    pass


@dataclass(frozen=True)
class RunConfig:
    problem: str = opt("", "problem to score (a folder name under problems/)")
    solution: str = opt("", "path to the solution file; empty = the problem's house kernel (solutions/house.py)")
    shapes: str = opt("all", "which shapes: visible, held_out, property or all", SHAPE_CHOICES)
    device: str = opt("auto", "auto (a GPU if torch sees one, else the CPU profile), cpu, cuda or cuda:N")
    lines: str = opt("eager,compiled,library", "reference lines measured in the same run (comma list, or none)")
    audits: bool = opt(True, "run hardware-counter audits (ncu) where the problem declares them")
    watch: bool = opt(True, "watch every call: record its kernels (CUPTI) and verify its output cheaply")
    seed: int = opt(0, "public seed (mixed with a per-run secret for the inputs)")
    seed_secret: str = opt("", "replay a run: the secret seed (hex) recorded in its result; empty = a fresh one")
    check_seeds: int = opt(3, "independent weight/input draws checked per shape before timing")
    timed_check_rate: float = opt(0.05, "probability that a timed call's output is also checked")
    warmup_s: float = opt(0.3, "minimum warm-up time per shape (seconds), so clocks settle")
    min_calls: int = opt(10, "minimum timed calls per shape")
    max_calls: int = opt(400, "maximum timed calls per shape")
    target_rse: float = opt(0.005, "stop timing once the median's relative standard error is below this")
    budget_s: float = opt(15.0, "timing budget per shape (seconds)")
    import_timeout_s: float = opt(600.0, "limit for importing the solution (seconds)")
    shape_timeout_s: float = opt(600.0, "limit for one shape: checks, compilation, warm-up and timing (seconds)")
    peak_tflops: float | None = opt(None, "override the dense peak TFLOPS of the problem's precision")
    peak_gbps: float | None = opt(None, "override the peak memory bandwidth (GB/s)")
    out: str = opt("results", "directory results are written under (<out>/<hardware>/<run_id>.json)")
    agent: str = opt("", "JSON file with the agent metadata of this solution (harness, model, effort, ...)")
    progress: bool = opt(True, "print per-shape progress on stderr")

    def line_names(self) -> tuple[str, ...]:
        if self.lines.strip() in ("", "none"):
            return ()
        return tuple(name.strip() for name in self.lines.split(",") if name.strip())

    def snapshot(self) -> dict:
        return dataclasses.asdict(self)


def parse_args(argv: list[str]) -> RunConfig:
    """`key=value` arguments (a bare `problem` name is accepted as the first argument too)."""
    if argv and "=" not in argv[0] and not argv[0].startswith("-"):
        argv = [f"problem={argv[0]}", *argv[1:]]
    config = parse(RunConfig, argv, "python -m scoring.run", error=ConfigError)
    unknown_lines = [n for n in config.line_names() if n not in LINE_CHOICES]
    if unknown_lines:
        raise ConfigError(f"lines: unknown line '{unknown_lines[0]}'{suggest(unknown_lines[0], LINE_CHOICES)}; "
                          f"use a comma list of {', '.join(LINE_CHOICES)} or none")
    return config


def help_text() -> str:
    return "\n".join([options_help(RunConfig, "python -m scoring.run problem=NAME [key=value ...]"), "",
                      "python -m scoring.run list       lists the problems",
                      "python -m scoring.run help       prints this"])
