"""`key=value` command-line options for a frozen dataclass whose fields carry a help line and a default.

One parser for every Ceiling command (`scoring.run`, `harnesses.run`, `harnesses.sweep`,
`viewer.leaderboard`). Torch-free: the site and the harnesses import it without a GPU stack. Errors name
the key and the fix, with a suggestion for a near-miss key or choice.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field, fields

from scoring.spec import suggest

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


class OptionError(ValueError):
    pass


def opt(default, help_text: str, choices: tuple = ()):
    return field(default=default, metadata={"help": help_text, "choices": choices})


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


def parse(cls, argv: list[str], command: str, base=None, error: type[Exception] = OptionError):
    """Build `cls` from key=value arguments, over `base` (an instance) or the defaults."""
    known = {f.name: f for f in fields(cls)}
    values = dataclasses.asdict(base) if base is not None else {}
    for arg in argv:
        if "=" not in arg:
            raise error(f"'{arg}' is not key=value; run `{command} help` for the keys")
        key, raw = arg.split("=", 1)
        key = key.strip().lstrip("-").replace("-", "_")
        if key not in known:
            raise error(f"unknown key '{key}'{suggest(key, known)}; run `{command} help` for the keys")
        value = convert(key, raw, str(known[key].type), error)
        choices = known[key].metadata.get("choices")
        if choices and value not in choices:
            raise error(f"{key}={raw!r}: choose one of {', '.join(choices)}{suggest(str(value), choices)}")
        values[key] = value
    return cls(**values)


def help_text(cls, usage: str) -> str:
    width = max(len(f.name) for f in fields(cls)) + 2
    rows = [usage, "", "keys (default in brackets):"]
    for f in fields(cls):
        default = f.default if f.default not in ("", None) else "-"
        if isinstance(default, bool):
            default = str(default).lower()
        rows.append(f"  {f.name:<{width}} {f.metadata['help']} [{default}]")
    return "\n".join(rows)
