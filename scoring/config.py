"""The scoring run's configuration: one frozen dataclass, parsed from `key=value` arguments.

Every field has a default and a help line; `python -m scoring.run help` prints them all. A snapshot of
the whole config is written into every result, so a result says exactly how it was produced.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from scoring.options import OptionError, above, at_least, between, opt, parse
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
    fresh_lines: bool = opt(
        False,
        "measure the reference lines again even where a result holds a measurement "
        "under the same key (scoring/line_cache.py)",
    )
    audits: bool = opt(
        True,
        "run the hardware-counter audits where the problem declares them (CUPTI's range "
        "profiler in the solution's worker, on a secretly drawn timed call: scoring/audit.py)",
    )
    watch: bool = opt(True, "watch every call: record its kernels (CUPTI) and verify its output cheaply")
    seed: int = opt(0, "public seed (mixed with a per-run secret for the inputs)")
    seed_secret: str = opt("", "replay a run: the secret seed (hex) recorded in its result; empty = a fresh one")
    # Why these ranges: a shape is timed only after it was checked (check_seeds >= 1); a median needs a call;
    # a zero time limit ends the worker before it starts; a zero budget (stop at min_calls) or target_rse
    # (never converge) says what min_calls or max_calls say plainly; the roofline divides by the peaks.
    # warmup_s may be 0: the warm-up calls (TimingPolicy.warmup_calls) still run.
    check_seeds: int = opt(3, "independent weight/input draws checked per shape before timing", allowed=at_least(1))
    timed_check_rate: float = opt(
        0.05, "probability that a timed call's output is also checked (the last always is)", allowed=between(0, 1)
    )
    warmup_s: float = opt(
        0.3,
        "minimum warm-up time per shape (seconds), so clocks settle; 0 = warm-up calls only",
        allowed=at_least(0, "seconds"),
    )
    min_calls: int = opt(10, "minimum timed calls per shape", allowed=at_least(1))
    min_timed_s: float = opt(
        0.25,
        "time the solution's calls for at least this long per shape (seconds, their "
        "checks included; never past budget_s); 0 = min_calls only",
        allowed=at_least(0, "seconds"),
    )
    max_calls: int = opt(400, "maximum timed calls per shape, at least min_calls", allowed=at_least(1))
    # Tighter does not make two runs agree better: drift between runs, not the median's standard error, is what
    # separates them (docs/measurements.md, "Repeat agreement").
    target_rse: float = opt(
        0.005, "stop timing once the median's relative standard error is below this", allowed=above(0)
    )
    budget_s: float = opt(15.0, "timing budget per shape (seconds)", allowed=above(0, "seconds"))
    # The reference lines' own budget. Host-bound lines (eager paged attention, MoE and KDA) move between two
    # runs by more than their medians' standard error, and the calls past 5 s a shape bought them no agreement
    # (docs/measurements.md, "Wall time of a run").
    line_budget_s: float = opt(
        5.0,
        "timing budget per shape for the reference lines (seconds); never more than budget_s",
        allowed=above(0, "seconds"),
    )
    import_timeout_s: float = opt(600.0, "limit for importing the solution (seconds)", allowed=above(0, "seconds"))
    shape_timeout_s: float = opt(
        600.0, "limit for one shape: checks, compilation, warm-up and timing (seconds)", allowed=above(0, "seconds")
    )
    max_timed_out_shapes: int = opt(
        2,
        "stop a system after this many shapes ran out of time (the rest are "
        "recorded as not run; it has failed already); 0 = run every shape",
        allowed=at_least(0),
    )
    prestart: bool = opt(
        True,
        "start the next worker process while the current system runs (its interpreter "
        "and imports only, no GPU work: scoring/standby.py); false = each when needed",
    )
    gpu_state: bool = opt(
        True,
        "read the GPU's clocks, temperature and power during each shape's timed calls "
        "(NVML, on a thread of the scorer's own process: scoring/gpu_state.py)",
    )
    peak_tflops: float | None = opt(
        None, "override the dense peak TFLOPS of the problem's precision", allowed=above(0, "TFLOPS")
    )
    peak_gbps: float | None = opt(None, "override the peak memory bandwidth (GB/s)", allowed=above(0, "GB/s"))
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
    if config.max_calls < config.min_calls:
        raise ConfigError(
            f"max_calls={config.max_calls}: must be >= min_calls ({config.min_calls}); lower min_calls too"
        )
    if config.seed_secret and not _is_hex(config.seed_secret):
        # It names the result file (its first 6 characters are in the run id): a '/' would escape <out>.
        raise ConfigError(
            f"seed_secret={config.seed_secret}: must be hex digits, as recorded in a result's seeds.secret"
        )
    unknown_lines = [n for n in config.line_names() if n not in LINE_CHOICES]
    if unknown_lines:
        raise ConfigError(
            f"lines: unknown line '{unknown_lines[0]}'{suggest(unknown_lines[0], LINE_CHOICES)}; "
            f"use a comma list of {', '.join(LINE_CHOICES)} or none"
        )
    return config


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


def help_text() -> str:
    return "\n".join(
        [
            options_help(RunConfig, "python -m scoring.run problem=NAME [key=value ...]"),
            "",
            "python -m scoring.run list       lists the problems",
            "python -m scoring.run help       prints this",
            "Exit status: 0 the solution passed everything, 1 it did not (the result is written either way), "
            "2 a usage error.",
        ]
    )
