"""`key=value` command-line options for a frozen dataclass whose fields carry a help line and a default.

One parser for every Ceiling command (`scoring.run`, `scoring.corpus`, `scoring.tensor_ops`, `board`,
`board.export`, `viewer`, `harnesses.run`, `harnesses.sweep`, `harnesses.import_kernelbench` and the benches;
tests/test_cli_behaviour.py holds each to the rule below). Torch-free: the site and the harnesses import it
without a GPU stack. Errors name the key and the fix, with a suggestion for a near-miss key or choice. A numeric
option may declare the values it allows (`allowed=above(0, "seconds")`): the help shows the range, and the parser
refuses a value outside it, naming the key, the value and the range.

The one rule every command follows (`RULES`, printed at the end of every help): options are `key=value`;
`--key=value` and `--key value` read the same as `key=value` (a bare `--key` of a true/false key means
true), a key given twice is refused rather than the last silently winning, and `help`, `-h` or `--help`
anywhere on the line prints the help and exits 0 (`wants_help`, checked before anything else is parsed).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass, field, fields

from scoring.spec import suggest

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}
HELP_WORDS = ("help", "-h", "--help")
RULES = (
    "Options are key=value; --key=value and --key value read the same (a bare --key of a true/false key "
    "means true).\nA key given twice is refused. help, -h or --help anywhere prints this. Exit status 2 "
    "on a usage error."
)


def wants_help(argv: list[str]) -> bool:
    """Whether `help`, `-h` or `--help` is anywhere on the command line (a value such as `title=help` is not)."""
    return any(arg in HELP_WORDS for arg in argv)


class OptionError(ValueError):
    pass


@dataclass(frozen=True)
class Range:
    """The values a numeric option allows: finite numbers from `low`, up to `high` where one is given."""

    low: float
    high: float | None = None
    low_inclusive: bool = True
    unit: str = ""

    def admits(self, value: float) -> bool:
        return (
            math.isfinite(value)
            and (value >= self.low if self.low_inclusive else value > self.low)
            and (self.high is None or value <= self.high)
        )

    def bounds(self) -> str:
        """`> 0`, `>= 1`, `in [0, 1]`."""
        if self.high is None:
            return f"{'>=' if self.low_inclusive else '>'} {self.low:g}"
        return f"in {'[' if self.low_inclusive else '('}{self.low:g}, {self.high:g}]"


def above(low: float, unit: str = "") -> Range:
    return Range(low=low, low_inclusive=False, unit=unit)


def at_least(low: float, unit: str = "") -> Range:
    return Range(low=low, unit=unit)


def between(low: float, high: float, unit: str = "") -> Range:
    return Range(low=low, high=high, unit=unit)


def opt(default, help_text: str, choices: tuple = (), allowed: Range | None = None):
    return field(default=default, metadata={"help": help_text, "choices": choices, "allowed": allowed})


def check_range(
    key: str, raw: str, value, allowed: Range | None, error: type[Exception] = OptionError, optional: bool = False
) -> None:
    """Refuse a number outside `allowed`; an `optional` number may also be None (unset)."""
    if allowed is None or value is None or allowed.admits(value):
        return
    finite = "" if math.isfinite(value) else "a finite number "
    unit = f" ({allowed.unit})" if allowed.unit else ""
    raise error(f"{key}={raw}: must be {finite}{allowed.bounds()}{unit}{', or none' if optional else ''}")


def convert(key: str, raw: str, kind: str, error: type[Exception] = OptionError):
    """`raw` as the field type named by `kind` (the annotation's text: bool, int, float, float | None, str)."""
    try:
        if kind == "bool":
            if raw.lower() in _TRUE | _FALSE:
                return raw.lower() in _TRUE
            raise ValueError
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "float | None":
            return None if raw.lower() in ("", "none") else float(raw)
        return raw
    except ValueError:
        raise error(f"{key}={raw!r}: expected {kind.replace(' | None', '')}") from None


def key_value_pairs(
    argv: list[str], bool_keys: set[str], command: str, error: type[Exception] = OptionError
) -> list[str]:
    """`argv` with `--key value` and `--key=value` written as `key=value` (RULES); a bare `--key` of a key in
    `bool_keys` is `key=true` unless a true/false word follows it. Other arguments are left as they are."""
    pairs: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if not arg.startswith("-") or arg == "-" or "=" in arg:
            pairs.append(arg)
            continue
        key = arg.lstrip("-").replace("-", "_")
        following = argv[index] if index < len(argv) else None
        if key in bool_keys and (following is None or following.lower() not in _TRUE | _FALSE):
            pairs.append(f"{key}=true")
        elif following is None or following in HELP_WORDS:
            raise error(f"{arg} needs a value: write {key}=VALUE; run `{command} help` for the keys")
        else:
            pairs.append(f"{key}={following}")
            index += 1
    return pairs


def with_overrides(defaults: list[str], overrides: list[str]) -> list[str]:
    """A caller's default `key=value` options less those whose key `overrides` gives, then `overrides`: the way a
    command passes a user's extra options (score_args=) on to another, since a key given twice is refused."""

    def key(arg: str) -> str:
        return arg.split("=", 1)[0].lstrip("-").replace("-", "_")

    given = {key(arg) for arg in overrides if "=" in arg}
    return [arg for arg in defaults if key(arg) not in given] + list(overrides)


def parse(cls, argv: list[str], command: str, base=None, error: type[Exception] = OptionError):
    """Build `cls` from key=value arguments (RULES), over `base` (an instance) or the defaults."""
    known = {f.name: f for f in fields(cls)}
    values = dataclasses.asdict(base) if base is not None else {}
    given: dict[str, str] = {}
    for arg in key_value_pairs(argv, {name for name, f in known.items() if str(f.type) == "bool"}, command, error):
        if "=" not in arg:
            hint = f" (write {arg}=VALUE)" if arg in known else ""
            raise error(f"'{arg}' is not key=value{hint}; run `{command} help` for the keys")
        key, raw = arg.split("=", 1)
        key = key.strip().lstrip("-").replace("-", "_")
        if key not in known:
            raise error(f"unknown key '{key}'{suggest(key, known)}; run `{command} help` for the keys")
        if key in given:
            raise error(f"{key} given twice ({key}={given[key]}, then {key}={raw}); give each key once")
        given[key] = raw
        value = convert(key, raw, str(known[key].type), error)
        choices = known[key].metadata.get("choices")
        if choices and value not in choices:
            raise error(f"{key}={raw!r}: choose one of {', '.join(choices)}{suggest(str(value), choices)}")
        check_range(key, raw, value, known[key].metadata.get("allowed"), error, optional=known[key].default is None)
        values[key] = value
    return cls(**values)


def parse_command(cls, argv: list[str], command: str, about: str = ""):
    """`cls` built from `argv`, or the exit status once `argv` asked for help (0: the keys printed, then `about`)
    or broke a rule (2: one line on stderr): the opening every command's main() shares."""
    if wants_help(argv):
        print(help_text(cls, f"{command} [key=value ...]") + (f"\n\n{about}" if about else ""))
        return 0
    try:
        return parse(cls, argv, command)
    except OptionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def help_text(cls, usage: str) -> str:
    width = max(len(f.name) for f in fields(cls)) + 2
    rows = [usage, "", "keys (default in brackets):"]
    for f in fields(cls):
        default = f.default if f.default not in ("", None) else "-"
        if isinstance(default, bool):
            default = str(default).lower()
        allowed = f.metadata.get("allowed")
        bounds = "" if allowed is None else f" (must be {allowed.bounds()}{', or none' if f.default is None else ''})"
        rows.append(f"  {f.name:<{width}} {f.metadata['help']} [{default}]{bounds}")
    return "\n".join([*rows, "", RULES])
