"""The solution's worker for `python -m scoring.run`, started before the scorer imports torch.

A worker spends ~3.9 s in its interpreter's start and imports before it can take an order (scoring/standby.py),
and the scorer spends its own start, imports, hardware detection and line lookups before it has one to give:
started one after the other, a one-solution run paid both. scoring/run.py calls `start_ahead(argv)` as its first
statement when it runs as a command, so the two overlap; the worker then waits for its order like any worker
started ahead (the solution finds the same process either way). Light on purpose: scoring.config,
scoring.isolation and the standard library, none of which imports torch.

A wrong guess costs nothing but the process: where the command is not a run, or the run's worker needs another
environment (`device=auto` resolved to the CPU on a machine with NVIDIA device nodes), nobody takes this worker
(Standby.take starts a fresh one) and it is killed at exit.
"""

from __future__ import annotations

import os

from scoring.config import ConfigError, parse_args
from scoring.isolation import REPO_ROOT, child_env
from scoring.options import wants_help
from scoring.standby import STANDBY

# scoring.run's commands that score nothing (its main() answers them before parsing a run's options)
LIST_WORD = "list"


def likely_device(device: str) -> str:
    """The device a run's workers are told, as far as their environment depends on it (scoring.isolation's
    child_env: the CPU profile or not), without importing torch: 'auto' is a GPU where the driver's device
    nodes exist (scoring.hardware.detect decides for real, with torch)."""
    if device != "auto":
        return device
    return "cuda" if os.path.exists("/dev/nvidiactl") else "cpu"


def start_ahead(argv: list[str]) -> bool:
    """Start the run's first worker now, unless the command is not a run, is malformed (the scorer reports
    it) or says prestart=false. Returns whether a worker was started."""
    if not argv or wants_help(argv) or argv[0] == LIST_WORD:
        return False
    try:
        config = parse_args(argv)
    except ConfigError:
        return False
    if not config.problem or not config.prestart:
        return False
    STANDBY.prepare(child_env(likely_device(config.device)), REPO_ROOT)
    return True
