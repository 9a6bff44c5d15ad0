"""The probe agent CLI (cli.py) and `install`, which puts it into a folder as `claude` with its plan;
`harnesses.run cli_dir=FOLDER` then runs it like the fake CLIs of harnesses/fake/."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

CLI_SOURCE = Path(__file__).with_name("cli.py")


def install(dest: Path, probes: list[dict], solution: str | None = None) -> Path:
    """Copy the probe CLI into `dest` as `claude`, with `probes` ({name, shell, timeout_s}); returns `dest`."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / "claude"
    shutil.copyfile(CLI_SOURCE, target)
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    plan = {"probes": probes, **({"solution": solution} if solution is not None else {})}
    (dest / "probe_plan.json").write_text(json.dumps(plan, indent=1))
    return dest


def report(run_dir: Path) -> dict:
    """What the probe saw from inside the sandbox (its PROBE_REPORT line in logs/agent.stderr)."""
    for line in (Path(run_dir) / "logs" / "agent.stderr").read_text().splitlines():
        if line.startswith("PROBE_REPORT "):
            return json.loads(line[len("PROBE_REPORT ") :])
    raise AssertionError(f"no PROBE_REPORT line in {run_dir}/logs/agent.stderr")
