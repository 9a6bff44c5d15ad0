"""`python -m harnesses.run harness=NAME model=M problem=P [key=value ...]`: one agent run, scored.

Prints the run folder and a one-line summary. Exit status: 0 when the run completed and its solution
passed, 1 when it did not (everything is written either way), 2 for a usage error.
"""

from __future__ import annotations

import json
import sys

from harnesses.agent_user import AgentUserError
from harnesses.agents import AdapterError
from harnesses.config import HarnessConfig
from scoring.options import OptionError, help_text, parse, wants_help
from harnesses.runner import run_one
from harnesses.sandbox import SandboxError
from scoring.spec import SpecError

USAGE = "python -m harnesses.run harness=NAME model=MODEL problem=NAME [key=value ...]"


def main(argv: list[str]) -> int:
    if not argv or wants_help(argv):
        print(
            help_text(HarnessConfig, USAGE) + "\nExit status: 0 the run completed and its solution passed, 1 it did "
            "not (everything is written either way), 2 a usage error."
        )
        return 0
    try:
        config = parse(HarnessConfig, argv, "python -m harnesses.run")
        run_dir = run_one(config)
    except (OptionError, AdapterError, AgentUserError, SandboxError, SpecError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    record = json.loads((run_dir / "run.json").read_text())
    print(f"run: {run_dir}")
    print(
        f"agent {'complete' if record['complete'] else 'INCOMPLETE: ' + record['incomplete_reason']}; "
        f"score status {record['score']['status']}; wall {record['wall_s']:.1f} s"
    )
    return 0 if record["complete"] and record["score"]["status"] == "passed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
