#!/usr/bin/env python3
"""A fake agent CLI for tests: one script that answers to every harness's executable name.

It accepts the real CLI's arguments (and fails with exit 2, like the real one, when a required flag is
missing), writes transcript lines in that CLI's documented format (shared/FORMATS.md) to stdout or to
its native session files under $HOME, and writes `solution.py` into its working directory. Stdlib only,
so it runs inside the sandbox without the repository.

Behaviour comes from `fake_behaviour.json` beside the script (optional):
  mode           good (default) | cut (stops mid-stream, exit 1) | hang (never ends) | hostile
  solution_file  a file beside the script whose text becomes solution.py (default: a small torch solution)
  probe_read, probe_list, probe_write, probe_connect (host:port): what the hostile mode tries
The hostile mode reports every attempt's outcome on stderr (a line `ESCAPE_REPORT {json}`).
"""

import json
import os
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOLUTION = '''"""FP8 GEMM by broadcast multiply and sum (no GEMM operator): a fake agent's answer."""
import torch


def run(state, a, a_scale):
    prod = a.to(torch.float32)[:, None, :] * state["b"].to(torch.float32)[None, :, :]
    return (prod.sum(-1) * (a_scale * state["b_scale"])).to(torch.bfloat16)
'''


def behaviour() -> dict:
    path = HERE / "fake_behaviour.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def need(argv: list[str], *flags: str) -> None:
    """Exit like a real CLI when the harness forgot an argument it needs."""
    for flag in flags:
        parts = flag.split()
        if not any(argv[i : i + len(parts)] == parts for i in range(len(argv))):
            print(f"error: expected argument '{flag}'", file=sys.stderr)
            sys.exit(2)


def value(argv: list[str], *names: str, default: str = "") -> str:
    for i, arg in enumerate(argv[:-1]):
        if arg in names:
            return argv[i + 1]
    return default


def solution_text(cfg: dict) -> str:
    name = cfg.get("solution_file")
    return (HERE / name).read_text() if name else DEFAULT_SOLUTION


def probe(cfg: dict, workspace: Path) -> None:
    report = {"read": {}, "write": {}, "list": {}, "connect": {}, "env": sorted(os.environ)}
    for target in cfg.get("probe_connect", []):
        import socket

        host, port = target.rsplit(":", 1)
        try:
            socket.create_connection((host, int(port)), timeout=2).close()
            report["connect"][target] = "ok"
        except OSError as exc:
            report["connect"][target] = f"denied: {type(exc).__name__}: {exc}"
    for target in cfg.get("probe_read", []):
        try:
            report["read"][target] = "ok: " + Path(target).read_text()[:60]
        except OSError as exc:
            report["read"][target] = f"denied: {type(exc).__name__}: {exc.strerror}"
    for target in cfg.get("probe_list", []):
        try:
            report["list"][target] = "ok: " + ",".join(sorted(os.listdir(target))[:20])
        except OSError as exc:
            report["list"][target] = f"denied: {type(exc).__name__}: {exc.strerror}"
    for target in cfg.get("probe_write", []):
        try:
            Path(target).write_text("escaped\n")
            report["write"][target] = "ok"
        except OSError as exc:
            report["write"][target] = f"denied: {type(exc).__name__}: {exc.strerror}"
    (workspace / "escape_report.json").write_text(json.dumps(report, indent=1))
    print("ESCAPE_REPORT " + json.dumps(report), file=sys.stderr, flush=True)


def emit(lines: list[dict], cfg: dict, out=None) -> None:
    """Write the lines (to stdout unless `out`), honouring the cut and hang modes."""
    mode = cfg.get("mode", "good")
    stream = out or sys.stdout
    keep = lines[: max(1, len(lines) // 2)] if mode in ("cut", "hang") else lines
    for line in keep:
        stream.write(json.dumps(line) + "\n")
        stream.flush()
    if mode == "hang":
        os.system(
            f"sleep {cfg.get('hang_sleep', '3600')} &"
        )  # a child in the process group: the budget must end it too
        time.sleep(3600)
    if mode == "cut":
        sys.exit(1)


# Each writer returns the transcript lines in its CLI's format for: prompt, write solution.py, answer.


def claude(argv, cfg, ws, sol):
    need(argv, "-p", "--output-format stream-json", "--verbose")
    sid, model = str(uuid.uuid4()), value(argv, "--model", default="claude-fake")
    usage = {
        "input_tokens": 120,
        "cache_creation_input_tokens": 3000,
        "cache_read_input_tokens": 9000,
        "output_tokens": 800,
    }
    path = str(ws / "solution.py")
    return [
        {
            "type": "system",
            "subtype": "init",
            "session_id": sid,
            "cwd": str(ws),
            "model": model,
            "tools": ["Write"],
            "mcp_servers": [],
            "permissionMode": "bypassPermissions",
            "claude_code_version": "2.1.3-fake",
        },
        {
            "type": "assistant",
            "session_id": sid,
            "parent_tool_use_id": None,
            "uuid": "u1",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": model,
                "stop_reason": None,
                "content": [
                    {"type": "tool_use", "id": "tu1", "name": "Write", "input": {"file_path": path, "content": sol}}
                ],
                "usage": usage,
            },
        },
        {
            "type": "user",
            "session_id": sid,
            "parent_tool_use_id": None,
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "File created"}],
            },
            "tool_use_result": {"type": "create", "filePath": path, "content": sol},
        },
        {
            "type": "assistant",
            "session_id": sid,
            "parent_tool_use_id": None,
            "uuid": "u3",
            "message": {
                "id": "msg_2",
                "type": "message",
                "role": "assistant",
                "model": model,
                "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Wrote solution.py."}],
                "usage": usage,
            },
        },
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 1200,
            "num_turns": 2,
            "result": "Wrote solution.py.",
            "session_id": sid,
            "total_cost_usd": 0.0421,
            "usage": usage,
            "modelUsage": {},
        },
    ]


def codex(argv, cfg, ws, sol):
    need(argv, "exec", "--json")
    tid, model = str(uuid.uuid4()), value(argv, "-m", "--model", default="gpt-fake")
    effort = next((a.split("=", 1)[1] for a in argv if a.startswith("model_reasoning_effort=")), "medium")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    folder = Path(os.environ["CODEX_HOME"]) / "sessions" / time.strftime("%Y/%m/%d")
    folder.mkdir(parents=True, exist_ok=True)
    usage = {
        "input_tokens": 9000,
        "cached_input_tokens": 6000,
        "output_tokens": 700,
        "reasoning_output_tokens": 300,
        "total_tokens": 9700,
    }
    patch = (
        "*** Begin Patch\n*** Add File: solution.py\n"
        + "".join("+" + line + "\n" for line in sol.splitlines())
        + "*** End Patch\n"
    )
    rollout = [
        (
            "session_meta",
            {
                "id": tid,
                "timestamp": stamp,
                "cwd": str(ws),
                "originator": "codex_exec",
                "cli_version": "0.50.0-fake",
                "model_provider": "openai",
            },
        ),
        (
            "turn_context",
            {
                "cwd": str(ws),
                "model": model,
                "effort": effort,
                "approval_policy": "never",
                "sandbox_policy": {"mode": "danger-full-access"},
            },
        ),
        ("event_msg", {"type": "task_started"}),
        ("response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": patch}),
        ("response_item", {"type": "custom_tool_call_output", "call_id": "c1", "output": "Success."}),
        ("event_msg", {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}),
        (
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Wrote solution.py."}],
            },
        ),
        ("event_msg", {"type": "task_complete", "last_agent_message": "Wrote solution.py."}),
    ]
    with open(folder / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S')}-{tid}.jsonl", "w") as f:
        emit([{"timestamp": stamp, "type": k, "payload": p} for k, p in rollout], dict(cfg, mode="good"), f)
    return [
        {"type": "thread.started", "thread_id": tid},
        {"type": "turn.started"},
        {
            "type": "item.completed",
            "item": {
                "id": "i0",
                "type": "file_change",
                "status": "completed",
                "changes": [{"path": str(ws / "solution.py"), "kind": "add"}],
            },
        },
        {"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": "Wrote solution.py."}},
        {"type": "turn.completed", "usage": {"input_tokens": 9000, "cached_input_tokens": 6000, "output_tokens": 700}},
    ]


def opencode(argv, cfg, ws, sol):
    need(argv, "run", "--format json")
    sid, t = "ses_" + uuid.uuid4().hex[:12], int(time.time() * 1000)
    return [
        {"type": "step_start", "timestamp": t, "sessionID": sid, "part": {"type": "step-start"}},
        {
            "type": "tool_use",
            "timestamp": t + 1,
            "sessionID": sid,
            "part": {
                "type": "tool",
                "tool": "write",
                "callID": "w1",
                "state": {
                    "status": "completed",
                    "input": {"filePath": str(ws / "solution.py"), "content": sol},
                    "output": "",
                    "title": "solution.py",
                    "metadata": {},
                    "time": {"start": t + 1, "end": t + 2},
                },
            },
        },
        {"type": "text", "timestamp": t + 3, "sessionID": sid, "part": {"type": "text", "text": "Done."}},
        {
            "type": "step_finish",
            "timestamp": t + 4,
            "sessionID": sid,
            "part": {
                "type": "step-finish",
                "reason": "stop",
                "cost": 0.013,
                "tokens": {"input": 1500, "output": 400, "reasoning": 100, "cache": {"read": 5000, "write": 0}},
            },
        },
    ]


def kimi(argv, cfg, ws, sol):
    need(argv, "--print", "--output-format stream-json")
    args = json.dumps({"path": str(ws / "solution.py"), "content": sol})
    return [
        {
            "role": "assistant",
            "content": [{"type": "think", "think": "Write it."}],
            "tool_calls": [{"id": "tc1", "type": "function", "function": {"name": "WriteFile", "arguments": args}}],
        },
        {"role": "tool", "tool_call_id": "tc1", "content": "<system>File written.</system>"},
        {"role": "assistant", "content": "Wrote solution.py."},
    ]


def cursor(argv, cfg, ws, sol):
    need(argv, "-p", "--output-format stream-json")
    sid, model = str(uuid.uuid4()), value(argv, "--model", default="cursor-fake")
    call = {"writeToolCall": {"args": {"path": str(ws / "solution.py"), "fileText": sol}}}
    done = {"writeToolCall": {"args": call["writeToolCall"]["args"], "result": {"success": {"linesCreated": 6}}}}
    return [
        {
            "type": "system",
            "subtype": "init",
            "apiKeySource": "env",
            "cwd": str(ws),
            "session_id": sid,
            "model": model,
            "permissionMode": "default",
        },
        {"type": "tool_call", "subtype": "started", "call_id": "c1", "tool_call": call, "session_id": sid},
        {"type": "tool_call", "subtype": "completed", "call_id": "c1", "tool_call": done, "session_id": sid},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            "session_id": sid,
        },
        {
            "type": "result",
            "subtype": "success",
            "duration_ms": 900,
            "is_error": False,
            "result": "Done.",
            "session_id": sid,
            "usage": {"inputTokens": 2000, "outputTokens": 300, "cacheReadTokens": 4000, "cacheWriteTokens": 100},
        },
    ]


def droid(argv, cfg, ws, sol):
    need(argv, "exec", "-o stream-json")
    sid, model = str(uuid.uuid4()), value(argv, "--model", "-m", default="droid-fake")
    effort = value(argv, "--reasoning-effort", "-r", default="medium")
    sessions = Path(os.environ["HOME"]) / ".factory" / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / f"{sid}.settings.json").write_text(
        json.dumps(
            {
                "model": model,
                "reasoningEffort": effort,
                "tokenUsage": {
                    "inputTokens": 2100,
                    "outputTokens": 430,
                    "cacheCreationTokens": 900,
                    "cacheReadTokens": 12000,
                    "thinkingTokens": 150,
                },
            },
            indent=2,
        )
    )
    t = int(time.time() * 1000)
    return [
        {
            "type": "system",
            "subtype": "init",
            "cwd": str(ws),
            "session_id": sid,
            "tools": ["Create"],
            "model": model,
            "reasoning_effort": effort,
        },
        {
            "type": "tool_call",
            "id": "d1",
            "toolName": "Create",
            "timestamp": t,
            "parameters": {"file_path": str(ws / "solution.py"), "content": sol},
        },
        {"type": "tool_result", "id": "d1", "isError": False, "value": "Created", "timestamp": t + 1},
        {"type": "message", "role": "assistant", "id": "m2", "text": "Done.", "timestamp": t + 2},
        {"type": "completion", "finalText": "Done.", "numTurns": 1, "durationMs": 900, "session_id": sid},
    ]


def gemini(argv, cfg, ws, sol):
    need(argv, "-o stream-json")
    sid, model = str(uuid.uuid4()), value(argv, "-m", "--model", default="gemini-fake")
    ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    stats = {
        "total_tokens": 4300,
        "input_tokens": 4000,
        "output_tokens": 300,
        "cached": 2500,
        "duration_ms": 900,
        "tool_calls": 1,
    }
    return [
        {"type": "init", "timestamp": ts, "session_id": sid, "model": model},
        {
            "type": "tool_use",
            "timestamp": ts,
            "tool_name": "write_file",
            "tool_id": "w1",
            "parameters": {"file_path": str(ws / "solution.py"), "content": sol},
        },
        {"type": "tool_result", "timestamp": ts, "tool_id": "w1", "status": "success", "output": "ok"},
        {"type": "message", "timestamp": ts, "role": "assistant", "content": "Done.", "delta": True},
        {"type": "result", "timestamp": ts, "status": "success", "stats": dict(stats, models={model: stats})},
    ]


WRITERS = {
    "claude": claude,
    "codex": codex,
    "opencode": opencode,
    "kimi": kimi,
    "cursor-agent": cursor,
    "droid": droid,
    "gemini": gemini,
}


def main(argv: list[str]) -> int:
    name = Path(sys.argv[0]).name
    if name not in WRITERS:
        print(f"fake cli: unknown name {name!r}; install it as one of {sorted(WRITERS)}", file=sys.stderr)
        return 2
    cfg, workspace = behaviour(), Path.cwd()
    lines = WRITERS[name](argv, cfg, workspace, solution_text(cfg))
    if cfg.get("mode") == "hostile":
        probe(cfg, workspace)
    (workspace / "solution.py").write_text(solution_text(cfg))
    emit(lines, cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
