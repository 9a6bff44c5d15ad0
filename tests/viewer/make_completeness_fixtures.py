"""Writes tests/viewer/fixtures/completeness/: for each format, one session that ends the way that
CLI ends a clean run (`<format>-clean.jsonl`) and the same session cut off mid-run
(`<format>-cut.jsonl`: its first lines only, as a killed process leaves the file).

Shapes follow each format's source as listed in docs/viewer.md (Claude Code 2.x session files
write `stop_reason: null` on every assistant record; only the last event says the run ended).
Run `python tests/viewer/make_completeness_fixtures.py` after changing it; the files are committed.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent / "fixtures" / "completeness"


def _claude_session() -> list[dict]:
    base = {"isSidechain": False, "sessionId": "s-2x", "cwd": "/work/run", "version": "2.0.77", "userType": "external"}
    usage = {"input_tokens": 5, "cache_creation_input_tokens": 900, "cache_read_input_tokens": 0, "output_tokens": 30}

    def assistant(uuid, parent, content, message_id):
        return base | {
            "type": "assistant",
            "uuid": uuid,
            "parentUuid": parent,
            "requestId": f"req_{message_id}",
            "timestamp": "2026-10-01T10:00:05.000Z",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": content,
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        }

    return [
        base
        | {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-10-01T10:00:00.000Z",
            "message": {"role": "user", "content": "Make the kernel faster."},
        },
        assistant(
            "u2", "u1", [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}], "msg_1"
        ),
        base
        | {
            "type": "user",
            "uuid": "u3",
            "parentUuid": "u2",
            "timestamp": "2026-10-01T10:00:06.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "solution.py"}],
            },
            "toolUseResult": {"stdout": "solution.py", "stderr": "", "interrupted": False},
        },
        assistant("u4", "u3", [{"type": "text", "text": "Done: the kernel is fused."}], "msg_2"),
        base
        | {
            "type": "system",
            "subtype": "turn_duration",
            "uuid": "u5",
            "parentUuid": "u4",
            "durationMs": 6000,
            "timestamp": "2026-10-01T10:00:07.000Z",
        },
    ]


def _claude_stream() -> list[dict]:
    return [
        {
            "type": "system",
            "subtype": "init",
            "session_id": "cs",
            "cwd": "/work/run",
            "model": "claude-sonnet-4-5",
            "tools": ["Bash"],
            "claude_code_version": "2.0.77",
            "permissionMode": "default",
        },
        {
            "type": "user",
            "session_id": "cs",
            "parent_tool_use_id": None,
            "message": {"role": "user", "content": [{"type": "text", "text": "Make it fast"}]},
        },
        {
            "type": "assistant",
            "session_id": "cs",
            "parent_tool_use_id": None,
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "stop_reason": None,
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        },
        {
            "type": "user",
            "session_id": "cs",
            "parent_tool_use_id": None,
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "solution.py"}],
            },
        },
        {
            "type": "assistant",
            "session_id": "cs",
            "parent_tool_use_id": None,
            "message": {
                "id": "m2",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "stop_reason": None,
                "content": [{"type": "text", "text": "Done."}],
                "usage": {"input_tokens": 12, "output_tokens": 3},
            },
        },
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 4000,
            "num_turns": 2,
            "session_id": "cs",
            "total_cost_usd": 0.01,
            "usage": {"input_tokens": 22, "output_tokens": 8},
        },
    ]


def _codex_rollout() -> list[dict]:
    def rec(kind, payload, second=0):
        return {"timestamp": f"2026-10-02T12:00:{second:02d}.000Z", "type": kind, "payload": payload}

    return [
        rec(
            "session_meta",
            {
                "id": "cx",
                "timestamp": "2026-10-02T12:00:00.000Z",
                "cwd": "/work/run",
                "originator": "codex_exec",
                "cli_version": "0.50.0",
                "model_provider": "openai",
            },
        ),
        rec("turn_context", {"cwd": "/work/run", "model": "gpt-5-codex", "effort": "high"}),
        rec("event_msg", {"type": "task_started", "model_context_window": 272000}, 1),
        rec(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it"}]},
            1,
        ),
        rec(
            "response_item",
            {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": json.dumps({"command": ["ls"]})},
            2,
        ),
        rec(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps(
                    {"output": "solution.py\n", "metadata": {"exit_code": 0, "duration_seconds": 0.4}}
                ),
            },
            3,
        ),
        rec(
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
            4,
        ),
        rec("event_msg", {"type": "task_complete", "last_agent_message": "Done."}, 4),
    ]


def _codex_exec() -> list[dict]:
    return [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "turn.started"},
        {
            "type": "item.started",
            "item": {"id": "i1", "type": "command_execution", "command": "ls", "status": "in_progress"},
        },
        {
            "type": "item.completed",
            "item": {
                "id": "i1",
                "type": "command_execution",
                "command": "ls",
                "aggregated_output": "solution.py",
                "exit_code": 0,
                "status": "completed",
            },
        },
        {"type": "item.completed", "item": {"id": "i2", "type": "agent_message", "text": "Done."}},
        {"type": "turn.completed", "usage": {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 10}},
    ]


def _opencode() -> list[dict]:
    def rec(kind, part, ms):
        return {"type": kind, "timestamp": 1759400000000 + ms, "sessionID": "ses", "part": part}

    tokens = {"input": 100, "output": 10, "reasoning": 0, "cache": {"read": 0, "write": 0}}
    return [
        rec("step_start", {"type": "step-start"}, 0),
        rec(
            "tool_use",
            {
                "type": "tool",
                "tool": "bash",
                "callID": "b1",
                "state": {
                    "status": "completed",
                    "input": {"command": "ls"},
                    "output": "solution.py",
                    "time": {"start": 1759400000010, "end": 1759400000020},
                },
            },
            10,
        ),
        rec("step_finish", {"type": "step-finish", "reason": "tool-calls", "cost": 0.001, "tokens": tokens}, 30),
        rec("step_start", {"type": "step-start"}, 40),
        rec("text", {"type": "text", "text": "Done."}, 50),
        rec("step_finish", {"type": "step-finish", "reason": "stop", "cost": 0.001, "tokens": tokens}, 60),
    ]


def _kimi_wire() -> list[dict]:
    def loop(event, ms):
        return {"type": "context.append_loop_event", "time": 1790000000000 + ms, "event": event}

    usage = {"inputOther": 100, "output": 10, "inputCacheRead": 0, "inputCacheCreation": 0}
    return [
        {"type": "metadata", "protocol_version": "1.4", "created_at": 1790000000000},
        {"type": "turn.prompt", "time": 1790000000010, "turnId": 0, "input": [{"type": "text", "text": "Fix it"}]},
        loop({"type": "step.begin", "step": 1, "uuid": "s1", "turnId": "0"}, 20),
        loop(
            {"type": "tool.call", "stepUuid": "s1", "toolCallId": "k1", "name": "Shell", "args": {"command": "ls"}}, 30
        ),
        loop({"type": "tool.result", "toolCallId": "k1", "result": {"output": "solution.py", "isError": False}}, 40),
        loop({"type": "step.end", "uuid": "s1", "step": 1, "finishReason": "tool_use", "usage": usage}, 50),
        loop({"type": "step.begin", "step": 2, "uuid": "s2", "turnId": "0"}, 60),
        loop({"type": "content.part", "stepUuid": "s2", "part": {"type": "text", "text": "Done."}}, 70),
        loop({"type": "step.end", "uuid": "s2", "step": 2, "finishReason": "end_turn", "usage": usage}, 80),
        {"type": "turn.ended", "time": 1790000000090, "turnId": 0, "reason": "completed"},
    ]


def _kimi_print() -> list[dict]:
    return [
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "p1",
                    "type": "function",
                    "function": {"name": "Shell", "arguments": json.dumps({"command": "ls"})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "p1", "content": "solution.py"},
        {"role": "assistant", "content": "Done."},
    ]


def _gemini_stream() -> list[dict]:
    return [
        {"type": "init", "timestamp": "2026-10-03T09:00:00.000Z", "session_id": "g", "model": "gemini-2.5-pro"},
        {"type": "message", "timestamp": "2026-10-03T09:00:00.100Z", "role": "user", "content": "Fix it"},
        {
            "type": "tool_use",
            "timestamp": "2026-10-03T09:00:01.000Z",
            "tool_name": "run_shell_command",
            "tool_id": "g1",
            "parameters": {"command": "ls"},
        },
        {
            "type": "tool_result",
            "timestamp": "2026-10-03T09:00:02.000Z",
            "tool_id": "g1",
            "status": "success",
            "output": "solution.py",
        },
        {
            "type": "message",
            "timestamp": "2026-10-03T09:00:03.000Z",
            "role": "assistant",
            "content": "Done.",
            "delta": True,
        },
        {
            "type": "result",
            "timestamp": "2026-10-03T09:00:04.000Z",
            "status": "success",
            "stats": {"total_tokens": 110, "input_tokens": 100, "output_tokens": 10, "cached": 0, "input": 100},
        },
    ]


def _gemini_session() -> list[dict]:
    return [
        {
            "sessionId": "gs",
            "projectHash": "h",
            "startTime": "2026-10-03T09:00:00.000Z",
            "lastUpdated": "2026-10-03T09:00:00.000Z",
            "kind": "main",
        },
        {"id": "m1", "timestamp": "2026-10-03T09:00:00.000Z", "type": "user", "content": "Fix it"},
        {
            "id": "m2",
            "timestamp": "2026-10-03T09:00:02.000Z",
            "type": "gemini",
            "content": "",
            "model": "gemini-2.5-pro",
            "toolCalls": [
                {
                    "id": "g1",
                    "name": "run_shell_command",
                    "args": {"command": "ls"},
                    "status": "success",
                    "result": [
                        {
                            "functionResponse": {
                                "id": "g1",
                                "name": "run_shell_command",
                                "response": {"output": "solution.py"},
                            }
                        }
                    ],
                }
            ],
            "tokens": {"input": 100, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 110},
        },
        {
            "id": "m3",
            "timestamp": "2026-10-03T09:00:03.000Z",
            "type": "gemini",
            "content": "Done.",
            "model": "gemini-2.5-pro",
            "tokens": {"input": 110, "output": 3, "cached": 0, "thoughts": 0, "tool": 0, "total": 113},
        },
    ]


def _cursor() -> list[dict]:
    return [
        {
            "type": "system",
            "subtype": "init",
            "apiKeySource": "env",
            "cwd": "/work/run",
            "session_id": "c",
            "model": "gpt-5",
        },
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": "Fix it"}]},
            "session_id": "c",
        },
        {
            "type": "tool_call",
            "subtype": "started",
            "call_id": "cc1",
            "tool_call": {"shellToolCall": {"args": {"command": "ls"}}},
            "session_id": "c",
        },
        {
            "type": "tool_call",
            "subtype": "completed",
            "call_id": "cc1",
            "tool_call": {
                "shellToolCall": {
                    "args": {"command": "ls"},
                    "result": {"success": {"stdout": "solution.py", "exitCode": 0}},
                }
            },
            "session_id": "c",
        },
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            "session_id": "c",
        },
        {
            "type": "result",
            "subtype": "success",
            "duration_ms": 3000,
            "is_error": False,
            "result": "Done.",
            "session_id": "c",
        },
    ]


def _droid() -> list[dict]:
    return [
        {
            "type": "system",
            "subtype": "init",
            "cwd": "/work/run",
            "session_id": "d",
            "tools": ["Execute"],
            "model": "claude-sonnet-4-5",
            "reasoning_effort": "high",
        },
        {"type": "message", "role": "user", "id": "m1", "text": "Fix it", "timestamp": 1759800000000},
        {
            "type": "tool_call",
            "id": "x1",
            "toolCallId": "call_1",
            "toolName": "Execute",
            "parameters": {"command": "ls"},
            "timestamp": 1759800000100,
        },
        {
            "type": "tool_result",
            "id": "x2",
            "toolCallId": "call_1",
            "isError": False,
            "value": "solution.py",
            "timestamp": 1759800000300,
        },
        {"type": "message", "role": "assistant", "id": "m2", "text": "Done.", "timestamp": 1759800000400},
        {"type": "completion", "finalText": "Done.", "numTurns": 2, "durationMs": 400, "session_id": "d"},
    ]


# format -> (records of a clean run, how many leading records the cut-off copy keeps)
SESSIONS = {
    "claude-session": (_claude_session, 3),
    "claude-stream": (_claude_stream, 4),
    "codex-rollout": (_codex_rollout, 5),
    "codex-exec": (_codex_exec, 3),
    "opencode": (_opencode, 5),
    "kimi-wire": (_kimi_wire, 4),
    "kimi-print": (_kimi_print, 1),
    "gemini-stream": (_gemini_stream, 3),
    "gemini-session": (_gemini_session, 2),
    "cursor": (_cursor, 3),
    "droid": (_droid, 3),
}


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    for fmt, (records_of, kept) in SESSIONS.items():
        lines = [json.dumps(r) for r in records_of()]
        (HERE / f"{fmt}-clean.jsonl").write_text("\n".join(lines) + "\n")
        (HERE / f"{fmt}-cut.jsonl").write_text("\n".join(lines[:kept]) + "\n")


if __name__ == "__main__":
    main()
