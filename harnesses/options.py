"""`key=value` command-line options for a frozen dataclass whose fields carry a help line and a default
(the same style as `python -m scoring.run`). Errors name the key and the fix."""

from __future__ import annotations

import dataclasses
from dataclasses import field, fields

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


class OptionError(ValueError):
    pass


def opt(default, help_text: str, choices: tuple = ()):
    return field(default=default, metadata={"help": help_text, "choices": choices})


def convert(key: str, raw: str, kind: str):
    try:
        if kind == "bool":
            if raw.lower() in _TRUE | _FALSE:
                return raw.lower() in _TRUE
            raise ValueError
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        return raw
    except ValueError:
        raise OptionError(f"{key}={raw!r}: expected {kind}") from None


def parse(cls, argv: list[str], command: str, base=None):
    """Build `cls` from key=value arguments, over `base` (an instance) or the defaults."""
    known = {f.name: f for f in fields(cls)}
    values = dataclasses.asdict(base) if base is not None else {}
    for arg in argv:
        if "=" not in arg:
            raise OptionError(f"'{arg}' is not key=value; run `{command} help` for the keys")
        key, raw = arg.split("=", 1)
        key = key.strip().lstrip("-").replace("-", "_")
        if key not in known:
            raise OptionError(f"unknown key '{key}'; run `{command} help` for the keys")
        value = convert(key, raw, str(known[key].type))
        choices = known[key].metadata.get("choices")
        if choices and value not in choices:
            raise OptionError(f"{key}={raw!r}: choose one of {', '.join(choices)}")
        values[key] = value
    return cls(**values)


def help_text(cls, usage: str) -> str:
    rows = [usage, "", "keys (default in brackets):"]
    for f in fields(cls):
        default = f.default if f.default not in ("", None) else "-"
        rows.append(f"  {f.name:<16} {f.metadata['help']} [{default}]")
    return "\n".join(rows)
