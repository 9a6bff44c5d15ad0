"""Fake agent CLIs (tests, dry runs and the GPU end-to-end script): `install` puts one executable per
harness name into a folder, with an optional behaviour file; `harnesses.run cli_dir=FOLDER` uses them."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

CLI_SOURCE = Path(__file__).with_name("cli.py")
NAMES = ("claude", "codex", "opencode", "kimi", "cursor-agent", "droid", "gemini")


def install(dest: Path, behaviour: dict | None = None, solution_text: str | None = None) -> Path:
    """Copy the fake CLI into `dest` under every executable name; returns `dest`."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in NAMES:
        target = dest / name
        shutil.copyfile(CLI_SOURCE, target)
        target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    behaviour = dict(behaviour or {})
    if solution_text is not None:
        (dest / "fake_solution.py").write_text(solution_text)
        behaviour["solution_file"] = "fake_solution.py"
    (dest / "fake_behaviour.json").write_text(json.dumps(behaviour, indent=1))
    return dest
