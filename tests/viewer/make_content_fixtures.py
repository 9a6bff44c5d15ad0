"""Writes tests/viewer/fixtures/content/: one small real-shaped file per content fix of issue 35,
written from each format's source (docs/viewer.md), never copied from another project.

  codex-040-durations.jsonl     a Codex 0.40 rollout whose outputs record metadata.duration_seconds
                                while several records share one timestamp second
  claude-stream-two-runs.jsonl  one stream-json file holding two runs (a resumed session appends)
  droid-stream-toolcallid.jsonl droid stream results paired by toolCallId (record ids differ), and a
                                completion whose finalText no message repeats
  cursor-agent-transcript.jsonl Cursor's agent-transcripts file ({role, message{content}})
  droid-session/<uuid>.jsonl    droid's session store, with its <uuid>.settings.json sidecar
  claude-records-array.json     Claude Code session records exported as one JSON array

Run `python tests/viewer/make_content_fixtures.py` after changing it; the files are committed.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent / "fixtures" / "content"
DROID_SESSION = "3b9e2c1a-droid"


def codex_durations() -> list[dict]:
    def rec(kind, payload):
        return {"timestamp": "2025-09-20T08:00:05.000Z", "type": kind, "payload": payload}

    records = [
        rec(
            "session_meta",
            {
                "id": "0199-codex-040",
                "timestamp": "2025-09-20T08:00:00.000Z",
                "cwd": "/work/run",
                "originator": "codex_cli_rs",
                "cli_version": "0.40.0",
            },
        ),
        rec("turn_context", {"cwd": "/work/run", "model": "gpt-5-codex", "effort": "medium"}),
        rec("event_msg", {"type": "task_started"}),
        rec(
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Run the tests"}]},
        ),
    ]
    for n, seconds in enumerate((1.25, 0.5, 3.0), start=1):
        records.append(
            rec(
                "response_item",
                {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"c{n}",
                    "arguments": json.dumps({"command": ["bash", "-lc", f"pytest -k t{n}"]}),
                },
            )
        )
        records.append(
            rec(
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": f"c{n}",
                    "output": json.dumps(
                        {"output": "1 passed", "metadata": {"exit_code": 0, "duration_seconds": seconds}}
                    ),
                },
            )
        )
    records.append(
        rec(
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "All pass."}]},
        )
    )
    records.append(rec("event_msg", {"type": "task_complete"}))
    return records


def claude_two_runs() -> list[dict]:
    def run(session, cost, tokens_in, tokens_out, ms, turns):
        return [
            {
                "type": "system",
                "subtype": "init",
                "session_id": session,
                "cwd": "/work/run",
                "model": "claude-sonnet-4-5",
                "tools": [],
                "claude_code_version": "2.0.30",
                "permissionMode": "default",
            },
            {
                "type": "user",
                "session_id": session,
                "parent_tool_use_id": None,
                "message": {"role": "user", "content": [{"type": "text", "text": "Go on"}]},
            },
            {
                "type": "assistant",
                "session_id": session,
                "parent_tool_use_id": None,
                "message": {
                    "id": f"m-{session}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": "Done."}],
                    "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
                },
            },
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "duration_ms": ms,
                "num_turns": turns,
                "session_id": session,
                "total_cost_usd": cost,
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
            },
        ]

    return run("run-a", 0.25, 1000, 100, 4000, 2) + run("run-b", 0.5, 3000, 300, 6000, 3)


def droid_stream() -> list[dict]:
    return [
        {
            "type": "system",
            "subtype": "init",
            "cwd": "/work/run",
            "session_id": "d-2",
            "tools": ["Execute"],
            "model": "glm-4.6",
            "reasoning_effort": "none",
        },
        {"type": "message", "role": "user", "id": "m1", "text": "Check it", "timestamp": 1759800000000},
        {
            "type": "tool_call",
            "id": "rec-7",
            "messageId": "m2",
            "toolCallId": "call_A",
            "toolName": "Execute",
            "parameters": {"command": "make test"},
            "timestamp": 1759800000100,
        },
        {
            "type": "tool_call",
            "id": "rec-8",
            "messageId": "m2",
            "toolCallId": "call_B",
            "toolName": "Execute",
            "parameters": {"command": "make lint"},
            "timestamp": 1759800000150,
        },
        {
            "type": "tool_result",
            "id": "rec-9",
            "messageId": "m3",
            "toolCallId": "call_B",
            "isError": True,
            "value": "lint: 2 errors",
            "timestamp": 1759800000300,
        },
        {
            "type": "tool_result",
            "id": "rec-10",
            "messageId": "m3",
            "toolCallId": "call_A",
            "isError": False,
            "value": "12 passed",
            "timestamp": 1759800000900,
        },
        {
            "type": "completion",
            "finalText": "Tests pass; lint reports 2 errors.",
            "numTurns": 2,
            "durationMs": 1000,
            "session_id": "d-2",
            "timestamp": 1759800001000,
        },
    ]


def cursor_transcript() -> list[dict]:
    return [
        {
            "role": "user",
            "message": {"content": [{"type": "text", "text": "<user_query>\nSpeed up the loop\n</user_query>"}]},
        },
        {
            "role": "assistant",
            "message": {
                "content": [
                    {"type": "text", "text": "Reading the file first."},
                    {"type": "tool_use", "id": "tu1", "name": "Read", "input": {"path": "/work/run/loop.py"}},
                ]
            },
        },
        {
            "role": "user",
            "message": {
                "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "for i in range(n): ..."}]
            },
        },
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "Vectorised with **numpy**."}]}},
    ]


def droid_session() -> list[dict]:
    return [
        {"type": "session_start", "id": DROID_SESSION, "title": "Fix the build", "owner": "dev", "cwd": "/work/run"},
        {
            "type": "message",
            "id": "m1",
            "timestamp": "2026-10-05T09:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "Fix the build"}]},
        },
        {
            "type": "message",
            "id": "m2",
            "timestamp": "2026-10-05T09:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Editing the Makefile."},
                    {
                        "type": "tool_use",
                        "id": "tc1",
                        "name": "Edit",
                        "input": {"file_path": "/work/run/Makefile", "old_string": "CC=gcc", "new_string": "CC=clang"},
                    },
                ],
            },
        },
        {
            "type": "message",
            "id": "m3",
            "timestamp": "2026-10-05T09:00:03.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "tc1", "content": "Edited"}],
            },
        },
        {"type": "todo_state", "todos": [{"content": "Fix the build", "status": "completed"}]},
        {
            "type": "message",
            "id": "m4",
            "timestamp": "2026-10-05T09:00:05.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "The build passes."}]},
        },
    ]


def droid_settings() -> dict:
    return {
        "model": "claude-sonnet-4-5",
        "reasoningEffort": "medium",
        "tokenUsage": {
            "inputTokens": 5000,
            "outputTokens": 400,
            "cacheCreationTokens": 1000,
            "cacheReadTokens": 20000,
            "thinkingTokens": 50,
        },
    }


def claude_records() -> list[dict]:
    from tests.viewer.make_completeness_fixtures import _claude_session

    return _claude_session()


def main() -> None:
    (HERE / "droid-session").mkdir(parents=True, exist_ok=True)
    jsonl = {
        "codex-040-durations.jsonl": codex_durations(),
        "claude-stream-two-runs.jsonl": claude_two_runs(),
        "droid-stream-toolcallid.jsonl": droid_stream(),
        "cursor-agent-transcript.jsonl": cursor_transcript(),
        f"droid-session/{DROID_SESSION}.jsonl": droid_session(),
    }
    for name, records in jsonl.items():
        (HERE / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    (HERE / f"droid-session/{DROID_SESSION}.settings.json").write_text(json.dumps(droid_settings(), indent=1) + "\n")
    (HERE / "claude-records-array.json").write_text(json.dumps(claude_records(), indent=1) + "\n")


if __name__ == "__main__":
    main()
