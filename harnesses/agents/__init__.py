"""One adapter per agent CLI. The table below is the registry: adding a CLI means adding a module and
a line here (no import side effects)."""

from . import claude, codex, cursor, droid, gemini, kimi, opencode
from scoring.spec import suggest

from .base import EFFORTS, Adapter, AdapterError, Invocation

ADAPTERS: dict[str, Adapter] = {
    m.ADAPTER.name: m.ADAPTER for m in (claude, codex, opencode, kimi, cursor, droid, gemini)
}


def get_adapter(name: str) -> Adapter:
    if name not in ADAPTERS:
        raise AdapterError(f"harness={name!r}: unknown{suggest(name, ADAPTERS)}; choose one of {', '.join(ADAPTERS)}")
    return ADAPTERS[name]


__all__ = ["ADAPTERS", "EFFORTS", "Adapter", "AdapterError", "Invocation", "get_adapter"]
