"""Writes tests/viewer/fixtures/showcase/: one real-shaped session each of Claude Code 2.x, Codex
0.104 and Kimi Code (wire 1.4), holding the records issue 35 found shown wrong: command messages,
TodoWrite, Edit strings, long tool input, web searches, context compaction, recorded durations,
Kimi's bookkeeping records. Written from the formats' sources (docs/viewer.md); the page
screenshots in docs/screenshots/viewer-* are of these files.

Run `python tests/viewer/make_showcase_fixtures.py` after changing it; the files are committed.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent / "fixtures" / "showcase"
LONG_SCRIPT = "python - <<'PY'\n" + "\n".join(f"print('shape {n}', {n * 512})" for n in range(1, 13)) + "\nPY"


def claude_session() -> list[dict]:
    base = {
        "isSidechain": False,
        "sessionId": "7f1c-claude-2x",
        "cwd": "/work/run",
        "version": "2.0.77",
        "userType": "external",
        "gitBranch": "main",
    }
    clock = iter(range(0, 3600, 7))

    def stamp():
        second = next(clock)
        return f"2026-10-01T10:{second // 60:02d}:{second % 60:02d}.000Z"

    uuid = iter(f"u{n}" for n in range(1, 100))
    parent = [None]

    def record(kind, **fields):
        this = next(uuid)
        out = base | {"type": kind, "uuid": this, "parentUuid": parent[0], "timestamp": stamp()} | fields
        parent[0] = this
        return out

    usage = {
        "input_tokens": 6,
        "cache_creation_input_tokens": 2400,
        "cache_read_input_tokens": 12000,
        "output_tokens": 180,
    }

    def assistant(message_id, *content):
        return record(
            "assistant",
            requestId=f"req_{message_id}",
            message={
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": list(content),
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            },
        )

    def tool_result(tool_id, text, extra=None):
        return record(
            "user",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": False}],
            },
            toolUseResult=extra or {"stdout": text, "stderr": "", "interrupted": False},
        )

    todos = [
        {"content": "Profile the kernel", "status": "completed", "activeForm": "Profiling"},
        {"content": "Fuse the epilogue", "status": "in_progress", "activeForm": "Fusing"},
        {"content": "Run the benchmark", "status": "pending", "activeForm": "Running"},
    ]
    return [
        {
            "type": "file-history-snapshot",
            "messageId": "m0",
            "snapshot": {"trackedFileBackups": {}},
            "isSnapshotUpdate": False,
        },
        record(
            "user",
            message={
                "role": "user",
                "content": "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>",
            },
        ),
        record("user", message={"role": "user", "content": "<local-command-stdout></local-command-stdout>"}),
        record(
            "user",
            message={
                "role": "user",
                "content": "Make `solution.py` **faster**:\n\n1. keep the API\n2. fuse the epilogue\n\n<b>not bold</b>",
            },
        ),
        assistant("msg_1", {"type": "thinking", "thinking": "Plan the work first.", "signature": "EoY"}),
        assistant("msg_1", {"type": "tool_use", "id": "toolu_todo", "name": "TodoWrite", "input": {"todos": todos}}),
        tool_result("toolu_todo", "Todos have been modified successfully.", {"oldTodos": [], "newTodos": todos}),
        assistant(
            "msg_2",
            {
                "type": "tool_use",
                "id": "toolu_edit",
                "name": "Edit",
                "input": {
                    "file_path": "/Users/dev/Work/run/solution.py",
                    "old_string": "def kernel(x):\n    return x * 2\n",
                    "new_string": "def kernel(x):\n    return torch.mul(x, 2)\n",
                    "replace_all": False,
                },
            },
        ),
        tool_result(
            "toolu_edit",
            "The file /Users/dev/Work/run/solution.py has been updated.",
            {
                "filePath": "/Users/dev/Work/run/solution.py",
                "oldString": "def kernel(x):\n    return x * 2\n",
                "newString": "def kernel(x):\n    return torch.mul(x, 2)\n",
                "structuredPatch": [
                    {
                        "oldStart": 3,
                        "oldLines": 2,
                        "newStart": 3,
                        "newLines": 2,
                        "lines": [" def kernel(x):", "-    return x * 2", "+    return torch.mul(x, 2)"],
                    }
                ],
            },
        ),
        assistant(
            "msg_3",
            {
                "type": "tool_use",
                "id": "toolu_bash",
                "name": "Bash",
                "input": {"command": LONG_SCRIPT, "description": "Print the benchmark shapes"},
            },
        ),
        tool_result("toolu_bash", "\n".join(f"shape {n} {n * 512}" for n in range(1, 13))),
        assistant(
            "msg_4",
            {"type": "text", "text": "Done. The epilogue is fused:\n\n| shape | ms |\n|---|---|\n| 4096 | 0.91 |"},
        ),
        record("system", subtype="turn_duration", durationMs=41000, isMeta=False),
    ]


def codex_rollout() -> list[dict]:
    def rec(kind, payload, second):
        return {"timestamp": f"2026-10-02T12:00:{second:02d}.000Z", "type": kind, "payload": payload}

    def output(text, seconds, code=0):
        return json.dumps({"output": text, "metadata": {"exit_code": code, "duration_seconds": seconds}})

    plan = [
        {"step": "Read the kernel", "status": "completed"},
        {"step": "Vectorise the loads", "status": "in_progress"},
        {"step": "Benchmark", "status": "pending"},
    ]
    return [
        rec(
            "session_meta",
            {
                "id": "0199-codex-104",
                "timestamp": "2026-10-02T12:00:00.000Z",
                "cwd": "/work/run",
                "originator": "codex_cli_rs",
                "cli_version": "0.104.0",
                "model_provider": "openai",
            },
            0,
        ),
        rec(
            "turn_context",
            {
                "cwd": "/work/run",
                "model": "gpt-5.3-codex",
                "effort": "high",
                "approval_policy": "never",
                "sandbox_policy": {"type": "workspace-write"},
                "summary": "auto",
            },
            0,
        ),
        rec("event_msg", {"type": "task_started", "model_context_window": 272000}, 1),
        rec(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Vectorise the loads in `kernel.cu` and benchmark it."}],
            },
            1,
        ),
        rec(
            "event_msg", {"type": "user_message", "message": "Vectorise the loads in `kernel.cu` and benchmark it."}, 1
        ),
        rec(
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "**Reading** the kernel."}],
                "encrypted_content": "gAAA",
            },
            2,
        ),
        rec("event_msg", {"type": "plan_update", "explanation": "Three steps.", "plan": plan}, 2),
        rec(
            "response_item",
            {
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": "CUDA float4 vectorized load alignment"},
            },
            3,
        ),
        rec(
            "event_msg",
            {"type": "web_search_end", "call_id": "ws_1", "query": "CUDA float4 vectorized load alignment"},
            3,
        ),
        rec(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "call_1",
                "arguments": json.dumps({"command": ["bash", "-lc", "nvcc -O3 kernel.cu -o k && ./k"]}),
            },
            4,
        ),
        rec(
            "response_item",
            {"type": "function_call_output", "call_id": "call_1", "output": output("time_ms=0.412\n", 2.8)},
            4,
        ),
        rec("event_msg", {"type": "context_compacted"}, 5),
        rec("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc123", "parent": "def456"}}, 5),
        rec(
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": {
                        "input_tokens": 9000,
                        "cached_input_tokens": 6000,
                        "output_tokens": 700,
                        "reasoning_output_tokens": 300,
                        "total_tokens": 9700,
                    },
                    "last_token_usage": {
                        "input_tokens": 9000,
                        "cached_input_tokens": 6000,
                        "output_tokens": 700,
                        "reasoning_output_tokens": 300,
                        "total_tokens": 9700,
                    },
                },
            },
            6,
        ),
        rec(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Loads now use `float4`: **0.41 ms** (was 0.93 ms)."}],
            },
            7,
        ),
        rec("event_msg", {"type": "task_complete", "last_agent_message": "Loads now use float4."}, 7),
    ]


def kimi_code_wire() -> list[dict]:
    def at(ms):
        return 1790000000000 + ms

    def loop(event, ms):
        return {"type": "context.append_loop_event", "time": at(ms), "event": event}

    usage = {"inputOther": 900, "output": 120, "inputCacheRead": 4000, "inputCacheCreation": 0}
    return [
        {"type": "metadata", "protocol_version": "1.4", "created_at": at(0)},
        {
            "type": "tools.set_active_tools",
            "time": at(1),
            "tools": ["Shell", "ReadFile", "WriteFile", "StrReplaceFile"],
        },
        {"type": "config.update", "time": at(2), "modelAlias": "kimi-k2.7-code", "cwd": "/work/run"},
        {
            "type": "turn.prompt",
            "time": at(10),
            "turnId": 0,
            "input": [{"type": "text", "text": "Write a *tiled* GEMM in `gemm.py`."}],
        },
        {"type": "plan_mode.enter", "time": at(11)},
        {"type": "llm.request", "time": at(12), "model": "kimi-k2.7-code", "messages": 3},
        loop({"type": "step.begin", "step": 1, "uuid": "s1", "turnId": "0"}, 20),
        loop({"type": "content.part", "stepUuid": "s1", "part": {"type": "think", "think": "Tile 128x128."}}, 30),
        loop(
            {
                "type": "tool.call",
                "stepUuid": "s1",
                "toolCallId": "k1",
                "name": "Write",
                "args": {"path": "/work/run/gemm.py", "content": "import triton\n\nBLOCK = 128\n"},
            },
            40,
        ),
        {"type": "permission.record_approval_result", "time": at(45), "toolCallId": "k1", "approved": True},
        loop({"type": "tool.result", "toolCallId": "k1", "result": {"output": "Wrote 3 lines", "isError": False}}, 50),
        loop({"type": "step.end", "uuid": "s1", "step": 1, "finishReason": "tool_use", "usage": usage}, 60),
        {"type": "plan_mode.exit", "time": at(61)},
        {"type": "llm.request", "time": at(62), "model": "kimi-k2.7-code", "messages": 5},
        {"type": "full_compaction.begin", "time": at(63)},
        {"type": "full_compaction.complete", "time": at(64), "summary": "Wrote gemm.py with 128x128 tiles."},
        loop({"type": "step.begin", "step": 2, "uuid": "s2", "turnId": "0"}, 70),
        loop(
            {
                "type": "content.part",
                "stepUuid": "s2",
                "part": {"type": "text", "text": "Wrote `gemm.py` (128×128 tiles)."},
            },
            80,
        ),
        loop({"type": "step.end", "uuid": "s2", "step": 2, "finishReason": "end_turn", "usage": usage}, 90),
        {
            "type": "usage.record",
            "time": at(91),
            "model": "kimi-k2.7-code",
            "usageScope": "session",
            "turnId": 0,
            "usage": usage,
        },
        {"type": "turn.ended", "time": at(100), "turnId": 0, "reason": "completed"},
    ]


FILES = {
    "claude-2x-session.jsonl": claude_session,
    "codex-0104-rollout.jsonl": codex_rollout,
    "kimi-code-14-wire.jsonl": kimi_code_wire,
}


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    for name, records_of in FILES.items():
        (HERE / name).write_text("".join(json.dumps(r) + "\n" for r in records_of()))


if __name__ == "__main__":
    main()
