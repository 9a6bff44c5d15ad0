#!/usr/bin/env python3
"""A probe agent CLI: a script in the place of `claude` that runs shell commands inside the sandbox
exactly as an agent's shell tool does, and reports what each one got.

It reads `probe_plan.json` beside itself: {"probes": [{"name": ..., "shell": ..., "timeout_s": ...}],
"solution": "text of solution.py" (optional)}. Each probe runs as `bash -c SHELL` in the workspace; its
exit status and the tails of its output go into a Claude stream-json transcript on stdout (a Bash
tool_use and its tool_result per probe, as Claude Code writes them) and into one line
`PROBE_REPORT {json}` on stderr, which the tests read. Stdlib only: it runs inside the sandbox without
the repository.
"""

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
TAIL_CHARS = 2000


def run_probe(probe: dict) -> dict:
    started = time.monotonic()
    try:
        done = subprocess.run(
            ["bash", "-c", probe["shell"]],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=probe.get("timeout_s", 60),
        )
        outcome = {"rc": done.returncode, "stdout": done.stdout[-TAIL_CHARS:], "stderr": done.stderr[-TAIL_CHARS:]}
    except subprocess.TimeoutExpired as exc:
        outcome = {"rc": None, "stdout": str(exc.stdout or "")[-TAIL_CHARS:], "stderr": "probe timed out"}
    outcome["wall_s"] = round(time.monotonic() - started, 3)
    return outcome


def main() -> int:
    plan = json.loads((HERE / "probe_plan.json").read_text())
    sid, workspace = str(uuid.uuid4()), Path.cwd()
    usage = {"input_tokens": 10, "output_tokens": 10}
    emit = lambda record: print(json.dumps(dict(record, session_id=sid)), flush=True)  # noqa: E731
    emit(
        {
            "type": "system",
            "subtype": "init",
            "cwd": str(workspace),
            "model": "probe",
            "tools": ["Bash"],
            "mcp_servers": [],
            "permissionMode": "bypassPermissions",
            "claude_code_version": "probe",
        }
    )
    if "solution" in plan:
        (workspace / "solution.py").write_text(plan["solution"])
    report = {}
    for i, probe in enumerate(plan.get("probes", [])):
        tool_id = f"probe{i}"
        emit(
            {
                "type": "assistant",
                "parent_tool_use_id": None,
                "uuid": f"a{i}",
                "message": {
                    "id": f"msg_{i}",
                    "type": "message",
                    "role": "assistant",
                    "model": "probe",
                    "stop_reason": None,
                    "usage": usage,
                    "content": [
                        {
                            "type": "tool_use",
                            "id": tool_id,
                            "name": "Bash",
                            "input": {"command": probe["shell"], "description": probe["name"]},
                        }
                    ],
                },
            }
        )
        outcome = run_probe(probe)
        report[probe["name"]] = outcome
        emit(
            {
                "type": "user",
                "parent_tool_use_id": None,
                "uuid": f"u{i}",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tool_id,
                            "content": outcome["stdout"] + outcome["stderr"],
                            "is_error": outcome["rc"] != 0,
                        }
                    ],
                },
            }
        )
    print("PROBE_REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    emit(
        {
            "type": "assistant",
            "parent_tool_use_id": None,
            "uuid": "end",
            "message": {
                "id": "msg_end",
                "type": "message",
                "role": "assistant",
                "model": "probe",
                "stop_reason": "end_turn",
                "usage": usage,
                "content": [{"type": "text", "text": "Probed."}],
            },
        }
    )
    emit(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 1,
            "num_turns": 1,
            "result": "Probed.",
            "total_cost_usd": 0.0,
            "usage": usage,
            "modelUsage": {},
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
