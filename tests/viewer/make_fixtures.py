"""Writes the transcript fixtures under tests/viewer/fixtures/ (run once; the files are committed).

Each fixture follows the fields FORMATS.md documents for its CLI and version. The numbers that
tests assert (token totals, diffs, tree shapes) are chosen here, so the expected values in the
tests can be checked by hand against this file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).parent / "fixtures"


def write_jsonl(rel: str, records: list, tail: str = "") -> None:
    path = ROOT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.write_text(text + tail, encoding="utf-8")


def write_json(rel: str, value) -> None:
    path = ROOT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# --- Claude Code stream-json ---------------------------------------------------------------------


def claude_init(sid="s-claude-1"):
    return {
        "type": "system",
        "subtype": "init",
        "session_id": sid,
        "cwd": "/work/run",
        "model": "claude-opus-4-5",
        "tools": ["Bash", "Edit", "Write", "Read", "Task"],
        "mcp_servers": [],
        "permissionMode": "bypassPermissions",
        "claude_code_version": "2.1.3",
        "uuid": "u0",
    }


def c_assistant(mid, blocks, usage, parent=None, uuid="u"):
    return [
        {
            "type": "assistant",
            "session_id": "s-claude-1",
            "parent_tool_use_id": parent,
            "uuid": f"{uuid}{i}",
            "message": {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-5",
                "content": [block],
                "stop_reason": None,
                "usage": usage,
            },
        }
        for i, block in enumerate(blocks)
    ]


def c_user_result(tool_id, content, parent=None, tool_use_result=None, is_error=False):
    line = {
        "type": "user",
        "session_id": "s-claude-1",
        "parent_tool_use_id": parent,
        "uuid": f"r-{tool_id}",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}],
        },
    }
    if tool_use_result is not None:
        line["tool_use_result"] = tool_use_result
    return line


def U(i, cw, cr, o):
    return {"input_tokens": i, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": o}


KERNEL_OLD = "import torch\n\ndef kernel(x):\n    return x * 2\n"
KERNEL_NEW = "import torch\n\ndef kernel(x):\n    return x.mul(2)\n"


def claude_stream_edit():
    records = [claude_init()]
    records += c_assistant(
        "msg_01",
        [
            {"type": "thinking", "thinking": "", "signature": "sig=="},
            {"type": "text", "text": "I'll switch the kernel to `mul`."},
            {
                "type": "tool_use",
                "id": "toolu_edit",
                "name": "Edit",
                "input": {
                    "file_path": "/work/run/solution.py",
                    "old_string": "return x * 2",
                    "new_string": "return x.mul(2)",
                },
            },
        ],
        U(100, 2000, 0, 50),
    )
    records.append(
        c_user_result(
            "toolu_edit",
            "The file /work/run/solution.py has been updated.",
            tool_use_result={
                "filePath": "/work/run/solution.py",
                "oldString": "return x * 2",
                "newString": "return x.mul(2)",
                "originalFile": KERNEL_OLD,
                "structuredPatch": [
                    {
                        "oldStart": 2,
                        "oldLines": 3,
                        "newStart": 2,
                        "newLines": 3,
                        "lines": [" ", " def kernel(x):", "-    return x * 2", "+    return x.mul(2)"],
                    }
                ],
            },
        )
    )
    records += c_assistant(
        "msg_02",
        [
            {
                "type": "tool_use",
                "id": "toolu_write",
                "name": "Write",
                "input": {"file_path": "/work/run/notes.md", "content": "# Notes\nuse mul\n"},
            }
        ],
        U(20, 150, 2000, 300),
    )
    records.append(
        c_user_result(
            "toolu_write",
            "File created successfully at: /work/run/notes.md",
            tool_use_result={
                "type": "create",
                "filePath": "/work/run/notes.md",
                "content": "# Notes\nuse mul\n",
                "structuredPatch": [],
            },
        )
    )
    records += c_assistant(
        "msg_03",
        [
            {
                "type": "tool_use",
                "id": "toolu_bash",
                "name": "Bash",
                "input": {
                    "command": "cat > /work/run/bench.sh <<'EOF'\npython -m scoring solution.py\nEOF\nchmod +x bench.sh",
                    "description": "write the bench script",
                },
            }
        ],
        U(10, 0, 2150, 80),
    )
    records.append(c_user_result("toolu_bash", "", tool_use_result={"stdout": "", "stderr": "", "interrupted": False}))
    records.append(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "session_id": "s-claude-1",
            "uuid": "cb",
            "compact_metadata": {"trigger": "auto", "pre_tokens": 151000},
        }
    )
    records += c_assistant(
        "msg_04",
        [{"type": "text", "text": "Done: the kernel now uses **mul**.\n\n- edited `solution.py`"}],
        U(5, 100, 2150, 40),
    )
    records.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 65400,
            "duration_api_ms": 50000,
            "num_turns": 4,
            "result": "Done: the kernel now uses mul.",
            "session_id": "s-claude-1",
            "total_cost_usd": 0.1234,
            "usage": U(135, 2250, 6300, 470),
            "modelUsage": {},
        }
    )
    write_jsonl("claude_stream/edit.jsonl", records)


def claude_stream_subagents():
    """Two parallel Task calls whose children interleave; child A spawns a nested Task."""
    records = [claude_init()]
    records += c_assistant(
        "msg_10",
        [
            {"type": "text", "text": "Exploring in parallel."},
            {
                "type": "tool_use",
                "id": "toolu_A",
                "name": "Task",
                "input": {
                    "description": "Profile kernel",
                    "prompt": "Profile the kernel",
                    "subagent_type": "general-purpose",
                },
            },
            {
                "type": "tool_use",
                "id": "toolu_B",
                "name": "Task",
                "input": {"description": "Read docs", "prompt": "Summarise the docs", "subagent_type": "Explore"},
            },
        ],
        U(10, 1000, 0, 100),
    )
    records.append(
        {
            "type": "system",
            "subtype": "task_started",
            "task_id": "t1",
            "tool_use_id": "toolu_A",
            "subagent_type": "general-purpose",
            "session_id": "s-claude-1",
        }
    )
    records.append(
        {
            "type": "system",
            "subtype": "task_started",
            "task_id": "t2",
            "tool_use_id": "toolu_B",
            "subagent_type": "Explore",
            "session_id": "s-claude-1",
        }
    )
    # Child B speaks first although A was spawned first: placement must follow ids, not order.
    records += c_assistant(
        "msg_B1",
        [{"type": "tool_use", "id": "toolu_B_read", "name": "Read", "input": {"file_path": "/work/run/README.md"}}],
        U(3, 500, 0, 20),
        parent="toolu_B",
    )
    records += c_assistant(
        "msg_A1",
        [
            {
                "type": "tool_use",
                "id": "toolu_A_nested",
                "name": "Task",
                "input": {"description": "Time it", "prompt": "Time the kernel", "subagent_type": "Bash"},
            }
        ],
        U(4, 600, 0, 30),
        parent="toolu_A",
    )
    records.append(c_user_result("toolu_B_read", "# README\n...", parent="toolu_B"))
    records += c_assistant(
        "msg_C1",
        [{"type": "tool_use", "id": "toolu_C_bash", "name": "Bash", "input": {"command": "python bench.py"}}],
        U(2, 300, 0, 10),
        parent="toolu_A_nested",
    )
    records.append(c_user_result("toolu_C_bash", "1.23 ms", parent="toolu_A_nested"))
    records += c_assistant(
        "msg_C2", [{"type": "text", "text": "It takes 1.23 ms."}], U(1, 0, 300, 8), parent="toolu_A_nested"
    )
    records.append(c_user_result("toolu_A_nested", [{"type": "text", "text": "It takes 1.23 ms."}], parent="toolu_A"))
    records += c_assistant(
        "msg_B2", [{"type": "text", "text": "Docs say: use Triton."}], U(1, 0, 500, 12), parent="toolu_B"
    )
    records += c_assistant(
        "msg_A2", [{"type": "text", "text": "Profile done: 1.23 ms."}], U(1, 0, 600, 9), parent="toolu_A"
    )
    records.append(
        {
            "type": "system",
            "subtype": "task_notification",
            "tool_use_id": "toolu_B",
            "status": "completed",
            "summary": "Docs summarised",
            "usage": {"total_tokens": 1036},
        }
    )
    records.append(c_user_result("toolu_B", [{"type": "text", "text": "Docs say: use Triton."}]))
    records.append(c_user_result("toolu_A", [{"type": "text", "text": "Profile done: 1.23 ms."}]))
    records += c_assistant("msg_11", [{"type": "text", "text": "Both subagents are done."}], U(5, 0, 1110, 25))
    records.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 12000,
            "num_turns": 2,
            "result": "Both subagents are done.",
            "session_id": "s-claude-1",
            "total_cost_usd": 0.05,
            "usage": U(15, 1000, 1110, 125),
        }
    )
    write_jsonl("claude_stream/parallel_subagents.jsonl", records)


def claude_stream_max_turns():
    records = [claude_init()]
    records += c_assistant(
        "msg_20", [{"type": "tool_use", "id": "toolu_ls", "name": "Bash", "input": {"command": "ls"}}], U(50, 0, 0, 10)
    )
    records.append(c_user_result("toolu_ls", "solution.py", is_error=False))
    records += c_assistant(
        "msg_21",
        [{"type": "tool_use", "id": "toolu_bad", "name": "Bash", "input": {"command": "false"}}],
        U(5, 0, 50, 10),
    )
    records.append(c_user_result("toolu_bad", "Error: exit code 1", is_error=True))
    records.append(
        {
            "type": "result",
            "subtype": "error_max_turns",
            "is_error": True,
            "duration_ms": 3000,
            "num_turns": 2,
            "session_id": "s-claude-1",
            "total_cost_usd": 0.002,
            "usage": U(55, 0, 50, 20),
        }
    )
    write_jsonl("claude_stream/max_turns.jsonl", records)


def claude_stream_truncated():
    """Killed mid-run: no result line, and the last line is cut off. Each message id's usage is
    repeated on every content-block line; counted once it sums to fresh 30, write 400, read 700, out 60."""
    records = [claude_init()]
    records += c_assistant(
        "msg_30",
        [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "toolu_r", "name": "Read", "input": {"file_path": "/work/run/solution.py"}},
        ],
        U(20, 400, 0, 25),
    )
    records.append(c_user_result("toolu_r", KERNEL_OLD))
    records += c_assistant(
        "msg_31",
        [
            {"type": "thinking", "thinking": "Maybe fuse.", "signature": "x"},
            {"type": "text", "text": "Trying a fused version."},
            {"type": "tool_use", "id": "toolu_pending", "name": "Bash", "input": {"command": "python bench.py"}},
        ],
        U(10, 0, 700, 35),
    )
    write_jsonl(
        "claude_stream/truncated.jsonl",
        records,
        tail='{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_pen',
    )


def claude_stream_hostile():
    records = [claude_init()]
    records += c_assistant(
        "msg_h1",
        [
            {
                "type": "text",
                "text": '<script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2">\n\n'
                "[click me](javascript:window.__pwned=3) ![tracker](https://evil.example/t.png)\n\n"
                '<a href="javascript:alert(1)">raw link</a>',
            },
            {
                "type": "tool_use",
                "id": "toolu_x",
                "name": 'Bash"><script>window.__pwned=4</script>',
                "input": {"command": "echo '<svg onload=window.__pwned=5>'"},
            },
        ],
        U(1, 0, 0, 1),
    )
    records.append(
        c_user_result(
            "toolu_x",
            '\x1b[31mred\x1b[0m \x1b]0;title\x07 <iframe src="https://evil.example"></iframe>'
            "</pre><script>window.__pwned=6</script>",
        )
    )
    records += c_assistant(
        "msg_h2",
        [
            {
                "type": "tool_use",
                "id": "toolu_w",
                "name": "Write",
                "input": {
                    "file_path": '/work/run/x.html"><script>window.__pwned=7</script>',
                    "content": "<script>window.__pwned=8</script>\n<style>body{display:none}</style>\n",
                },
            }
        ],
        U(1, 0, 0, 1),
    )
    records.append({"type": 'mystery"><script>window.__pwned=9</script>', "payload": "<b onmouseover=alert(1)>x</b>"})
    records.append(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "duration_ms": 10,
            "num_turns": 1,
            "session_id": "s-claude-1",
            "total_cost_usd": 0.0,
            "usage": U(2, 0, 0, 2),
        }
    )
    write_jsonl("claude_stream/hostile.jsonl", records)


# --- Claude Code session files -------------------------------------------------------------------


def s_line(
    kind,
    uuid,
    parent,
    message=None,
    t="2026-10-01T10:00:00.000Z",
    req=None,
    side=False,
    agent=None,
    sid="sess-1",
    **extra,
):
    line = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "isSidechain": side,
        "sessionId": sid,
        "timestamp": t,
        "cwd": "/work/run",
        "version": "2.1.3",
        "userType": "external",
    }
    if req:
        line["requestId"] = req
    if agent:
        line["agentId"] = agent
    if message is not None:
        line["message"] = message
    line.update(extra)
    return line


def s_asst(mid, block, usage, stop=None):
    return {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [block],
        "stop_reason": stop,
        "usage": usage,
    }


def s_user_text(text):
    return {"role": "user", "content": text}


def s_result(tool_id, content, is_error=False):
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}],
    }


def claude_session_v21():
    """2.1 layout: subagents in <sid>/subagents with meta files; agent a1 spawns nested agent a2.
    Main usage (per message id + request id, once): req_1 (in 3, write 1200, out 40), req_2 (in 2,
    read 1200, write 300, out 500), req_3 (in 1, read 1500, out 20).
    a1: (in 5, write 800, out 30) + (in 1, read 800, out 12); a2: (in 4, write 200, out 9)."""
    d = "claude_session_v21"
    sid = "sess-1"
    main = [
        {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {"trackedFileBackups": {}}},
        s_line("user", "u1", None, s_user_text("Make the kernel faster."), t="2026-10-01T10:00:00.000Z"),
        s_line(
            "assistant",
            "u2",
            "u1",
            s_asst("msg_a", {"type": "thinking", "thinking": "", "signature": "EoY"}, U(3, 1200, 0, 40)),
            t="2026-10-01T10:00:03.000Z",
            req="req_1",
        ),
        s_line(
            "assistant",
            "u3",
            "u2",
            s_asst(
                "msg_a",
                {
                    "type": "tool_use",
                    "id": "toolu_task",
                    "name": "Task",
                    "input": {
                        "description": "Find hotspots",
                        "prompt": "Find the hotspots in solution.py",
                        "subagent_type": "general-purpose",
                    },
                },
                U(3, 1200, 0, 40),
            ),
            t="2026-10-01T10:00:03.500Z",
            req="req_1",
        ),
        s_line(
            "user",
            "u4",
            "u3",
            s_result("toolu_task", [{"type": "text", "text": "Hotspot: the loop."}]),
            t="2026-10-01T10:00:30.000Z",
            toolUseResult={
                "status": "completed",
                "agentId": "a1",
                "content": [{"type": "text", "text": "Hotspot: the loop."}],
            },
        ),
        s_line(
            "assistant",
            "u5",
            "u4",
            s_asst(
                "msg_b",
                {
                    "type": "tool_use",
                    "id": "toolu_e",
                    "name": "MultiEdit",
                    "input": {
                        "file_path": "/work/run/solution.py",
                        "edits": [
                            {"old_string": "x * 2", "new_string": "x.mul(2)"},
                            {"old_string": "import torch\n", "new_string": "import torch\nimport triton\n"},
                        ],
                    },
                },
                U(2, 300, 1200, 500),
            ),
            t="2026-10-01T10:00:35.000Z",
            req="req_2",
        ),
        s_line(
            "user",
            "u6",
            "u5",
            s_result("toolu_e", "Applied 2 edits to /work/run/solution.py"),
            t="2026-10-01T10:00:36.000Z",
            toolUseResult={
                "filePath": "/work/run/solution.py",
                "structuredPatch": [
                    {
                        "oldStart": 1,
                        "oldLines": 4,
                        "newStart": 1,
                        "newLines": 5,
                        "lines": [
                            " import torch",
                            "+import triton",
                            " ",
                            " def kernel(x):",
                            "-    return x * 2",
                            "+    return x.mul(2)",
                        ],
                    }
                ],
            },
        ),
        s_line(
            "system",
            "u7",
            "u6",
            subtype="compact_boundary",
            content="Conversation compacted",
            compactMetadata={"trigger": "manual", "preTokens": 90000},
            t="2026-10-01T10:00:40.000Z",
        ),
        s_line(
            "assistant",
            "u8",
            "u7",
            s_asst(
                "msg_c",
                {"type": "text", "text": "Edited; the loop now uses `mul`."},
                U(1, 0, 1500, 20),
                stop="end_turn",
            ),
            t="2026-10-01T10:01:00.000Z",
            req="req_3",
        ),
    ]
    write_jsonl(f"{d}/{sid}.jsonl", main)
    a1 = [
        s_line(
            "user",
            "a1u1",
            None,
            s_user_text("Find the hotspots in solution.py"),
            side=True,
            agent="a1",
            t="2026-10-01T10:00:04.000Z",
        ),
        s_line(
            "assistant",
            "a1u2",
            "a1u1",
            s_asst(
                "msg_a1",
                {
                    "type": "tool_use",
                    "id": "toolu_nested",
                    "name": "Task",
                    "input": {"description": "Time it", "prompt": "Time the loop", "subagent_type": "Bash"},
                },
                U(5, 800, 0, 30),
            ),
            side=True,
            agent="a1",
            req="req_a1",
            t="2026-10-01T10:00:06.000Z",
        ),
        s_line(
            "user",
            "a1u3",
            "a1u2",
            s_result("toolu_nested", "loop: 2.5 ms"),
            side=True,
            agent="a1",
            t="2026-10-01T10:00:20.000Z",
        ),
        s_line(
            "assistant",
            "a1u4",
            "a1u3",
            s_asst("msg_a1b", {"type": "text", "text": "Hotspot: the loop."}, U(1, 0, 800, 12), stop="end_turn"),
            side=True,
            agent="a1",
            req="req_a1b",
            t="2026-10-01T10:00:29.000Z",
        ),
    ]
    write_jsonl(f"{d}/{sid}/subagents/agent-a1.jsonl", a1)
    write_json(
        f"{d}/{sid}/subagents/agent-a1.meta.json",
        {"agentId": "a1", "toolUseId": "toolu_task", "agentType": "general-purpose"},
    )
    a2 = [
        s_line("user", "a2u1", None, s_user_text("Time the loop"), side=True, agent="a2", t="2026-10-01T10:00:07.000Z"),
        s_line(
            "assistant",
            "a2u2",
            "a2u1",
            s_asst("msg_a2", {"type": "text", "text": "loop: 2.5 ms"}, U(4, 200, 0, 9), stop="end_turn"),
            side=True,
            agent="a2",
            req="req_a2",
            t="2026-10-01T10:00:19.000Z",
        ),
    ]
    write_jsonl(f"{d}/{sid}/subagents/agent-a2.jsonl", a2)
    write_json(
        f"{d}/{sid}/subagents/agent-a2.meta.json", {"agentId": "a2", "toolUseId": "toolu_nested", "agentType": "Bash"}
    )


def claude_session_legacy():
    """Pre-2.1 layout: agent-*.jsonl beside the session file, no meta. Agent b1 pairs through the
    Task result's agentId, agent b2 through its prompt. The user rewound once (u3 abandoned)."""
    d = "claude_session_legacy"
    sid = "sess-2"
    main = [
        {"type": "summary", "summary": "Kernel tuning", "leafUuid": "v9"},
        s_line("user", "v1", None, s_user_text("Tune it."), sid=sid, t="2026-09-01T09:00:00Z"),
        s_line(
            "assistant",
            "v2",
            "v1",
            s_asst("m1", {"type": "text", "text": "First try (abandoned)."}, U(7, 0, 0, 7)),
            sid=sid,
            req="r1",
            t="2026-09-01T09:00:02Z",
        ),
        s_line("user", "v3", "v2", s_user_text("No, wait."), sid=sid, t="2026-09-01T09:00:05Z"),
        s_line(
            "assistant",
            "v4",
            "v1",
            s_asst(
                "m2",
                {
                    "type": "tool_use",
                    "id": "toolu_t1",
                    "name": "Task",
                    "input": {"description": "one", "prompt": "Look at A", "subagent_type": "Explore"},
                },
                U(3, 100, 0, 5),
            ),
            sid=sid,
            req="r2",
            t="2026-09-01T09:00:10Z",
        ),
        s_line(
            "assistant",
            "v5",
            "v4",
            s_asst(
                "m2",
                {
                    "type": "tool_use",
                    "id": "toolu_t2",
                    "name": "Task",
                    "input": {"description": "two", "prompt": "Look at B", "subagent_type": "Explore"},
                },
                U(3, 100, 0, 5),
            ),
            sid=sid,
            req="r2",
            t="2026-09-01T09:00:10Z",
        ),
        s_line(
            "user",
            "v6",
            "v5",
            s_result("toolu_t1", "A is fine"),
            sid=sid,
            toolUseResult={"agentId": "b1", "status": "completed"},
            t="2026-09-01T09:00:20Z",
        ),
        s_line("user", "v7", "v6", s_result("toolu_t2", "B is slow"), sid=sid, t="2026-09-01T09:00:21Z"),
        s_line(
            "system",
            "v8",
            "v7",
            subtype="api_error",
            error={"message": "overloaded"},
            sid=sid,
            t="2026-09-01T09:00:22Z",
        ),
    ]
    write_jsonl(f"{d}/{sid}.jsonl", main)
    # b2 is written first in name order but must still land under toolu_t2 (by prompt).
    write_jsonl(
        f"{d}/agent-b2.jsonl",
        [
            s_line(
                "user", "b2u1", None, s_user_text("Look at B"), sid=sid, side=True, agent="b2", t="2026-09-01T09:00:11Z"
            ),
            s_line(
                "assistant",
                "b2u2",
                "b2u1",
                s_asst("mb2", {"type": "text", "text": "B is slow"}, U(2, 0, 0, 2)),
                sid=sid,
                side=True,
                agent="b2",
                req="rb2",
                t="2026-09-01T09:00:19Z",
            ),
        ],
    )
    write_jsonl(
        f"{d}/agent-b1.jsonl",
        [
            s_line(
                "user", "b1u1", None, s_user_text("Look at A"), sid=sid, side=True, agent="b1", t="2026-09-01T09:00:11Z"
            ),
            s_line(
                "assistant",
                "b1u2",
                "b1u1",
                s_asst("mb1", {"type": "text", "text": "A is fine"}, U(1, 0, 0, 1)),
                sid=sid,
                side=True,
                agent="b1",
                req="rb1",
                t="2026-09-01T09:00:18Z",
            ),
        ],
    )
    # An agent file of another session in the same folder must be ignored.
    write_jsonl(
        f"{d}/agent-zz.jsonl",
        [s_line("user", "z1", None, s_user_text("Other session"), sid="sess-other", side=True, agent="zz")],
    )


# --- Codex ---------------------------------------------------------------------------------------


def cx(t, kind, payload):
    return {"timestamp": f"2026-10-02T12:00:{t:02d}.000Z", "type": kind, "payload": payload}


def tc(t, total, last):
    return cx(
        t,
        "event_msg",
        {
            "type": "token_count",
            "info": {"total_token_usage": total, "last_token_usage": last, "model_context_window": 272000},
        },
    )


def tok(i, c, o, r):
    return {
        "input_tokens": i,
        "cached_input_tokens": c,
        "output_tokens": o,
        "reasoning_output_tokens": r,
        "total_tokens": i + o,
    }


PATCH = (
    "*** Begin Patch\n*** Add File: kernels/fast.py\n+def fast(x):\n+    return x.mul(2)\n"
    "*** Update File: solution.py\n@@ def kernel(x):\n-    return x * 2\n+    return fast(x)\n*** End Patch\n"
)


def codex_rollout_patch():
    """Totals: the last total_token_usage is input 9000 (cached 6000), output 700 (reasoning 300):
    fresh 3000, cache read 6000, output 400, reasoning 300."""
    t1, t2 = tok(4000, 2000, 300, 100), tok(9000, 6000, 700, 300)
    records = [
        cx(
            0,
            "session_meta",
            {
                "id": "0199-codex-sess",
                "timestamp": "2026-10-02T12:00:00.000Z",
                "cwd": "/work/run",
                "originator": "codex_exec",
                "cli_version": "0.50.0",
                "model_provider": "openai",
                "git": {"branch": "main"},
            },
        ),
        cx(
            0,
            "turn_context",
            {
                "cwd": "/work/run",
                "model": "gpt-5-codex",
                "effort": "high",
                "approval_policy": "never",
                "sandbox_policy": {"mode": "workspace-write"},
            },
        ),
        cx(
            1,
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>\n  <cwd>/work/run</cwd>\n</environment_context>",
                    }
                ],
            },
        ),
        cx(
            1,
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Speed up solution.py"}]},
        ),
        cx(1, "event_msg", {"type": "user_message", "message": "Speed up solution.py"}),
        cx(1, "event_msg", {"type": "task_started", "model_context_window": 272000}),
        cx(
            3,
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "**Plan**: read then patch."}],
                "encrypted_content": "gAAA",
            },
        ),
        cx(3, "event_msg", {"type": "agent_reasoning", "text": "**Plan**: read then patch."}),
        cx(
            4,
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "call_1",
                "arguments": json.dumps({"cmd": "cat solution.py", "workdir": "/work/run"}),
            },
        ),
        cx(5, "event_msg", {"type": "exec_command_end", "call_id": "call_1", "exit_code": 0}),
        cx(5, "response_item", {"type": "function_call_output", "call_id": "call_1", "output": KERNEL_OLD}),
        tc(5, t1, t1),
        tc(5, t1, t1),
        cx(
            8,
            "response_item",
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "call_id": "call_2",
                "input": PATCH,
                "status": "completed",
            },
        ),
        cx(
            9,
            "event_msg",
            {
                "type": "patch_apply_end",
                "call_id": "call_2",
                "success": True,
                "changes": {
                    "/work/run/kernels/fast.py": {"type": "add", "content": "def fast(x):\n    return x.mul(2)\n"},
                    "/work/run/solution.py": {
                        "type": "update",
                        "unified_diff": "@@ -3,2 +3,2 @@\n def kernel(x):\n-    return x * 2\n+    return fast(x)\n",
                        "move_path": None,
                    },
                },
            },
        ),
        cx(
            9,
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "call_2",
                "output": json.dumps(
                    {
                        "output": "Success. Updated the following files:\nA kernels/fast.py\nM solution.py\n",
                        "metadata": {"exit_code": 0, "duration_seconds": 0.1},
                    }
                ),
            },
        ),
        cx(
            12,
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Patched: `fast()` now does the work."}],
            },
        ),
        cx(12, "event_msg", {"type": "agent_message", "message": "Patched: `fast()` now does the work."}),
        tc(12, t2, tok(5000, 4000, 400, 200)),
        tc(12, t2, tok(5000, 4000, 400, 200)),
        cx(13, "event_msg", {"type": "task_complete", "last_agent_message": "Patched."}),
    ]
    write_jsonl("codex/rollout-2026-10-02T12-00-00-0199-codex-sess.jsonl", records)


def codex_rollout_aborted():
    """Older CLI: `shell` with an argv list, apply_patch inside a heredoc, compaction, then an
    aborted turn. Totals: input 1500 (cached 500), output 120 (reasoning 0)."""
    heredoc = (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: solution.py\n@@\n-    return x * 2\n+    return x + x\n"
        "*** End Patch\nEOF"
    )
    records = [
        cx(
            0,
            "session_meta",
            {"id": "old-sess", "cwd": "/work/run", "originator": "codex_cli_rs", "cli_version": "0.30.0"},
        ),
        cx(0, "turn_context", {"cwd": "/work/run", "model": "gpt-5", "effort": "medium"}),
        cx(
            1,
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it"}]},
        ),
        cx(1, "event_msg", {"type": "task_started"}),
        cx(
            2,
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": json.dumps({"command": ["bash", "-lc", heredoc], "timeout_ms": 10000}),
            },
        ),
        cx(
            3,
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps({"output": "Done!", "metadata": {"exit_code": 0}}),
            },
        ),
        tc(3, tok(1000, 500, 80, 0), tok(1000, 500, 80, 0)),
        cx(4, "compacted", {"message": "Summary of the conversation so far", "replacement_history": []}),
        cx(
            5,
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c2",
                "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q"]}),
            },
        ),
        cx(
            6,
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}}),
            },
        ),
        tc(6, tok(1500, 500, 120, 0), tok(500, 0, 40, 0)),
        cx(7, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        cx(7, "event_msg", {"type": "brand_new_event", "detail": 1}),
    ]
    write_jsonl("codex/rollout-aborted.jsonl", records)


def codex_exec():
    """Two turns: (in 2000, cached 1500, out 100) + (in 3000, cached 2500, out 150):
    fresh 1000, cache read 4000, output 250."""
    records = [
        {"type": "thread.started", "thread_id": "0199-thread"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "**Reading** the file"}},
        {
            "type": "item.started",
            "item": {
                "id": "item_1",
                "type": "command_execution",
                "command": "bash -lc 'cat solution.py'",
                "aggregated_output": "",
                "exit_code": None,
                "status": "in_progress",
            },
        },
        {
            "type": "item.completed",
            "item": {
                "id": "item_1",
                "type": "command_execution",
                "command": "bash -lc 'cat solution.py'",
                "aggregated_output": KERNEL_OLD,
                "exit_code": 0,
                "status": "completed",
            },
        },
        {"type": "turn.completed", "usage": {"input_tokens": 2000, "cached_input_tokens": 1500, "output_tokens": 100}},
        {"type": "turn.started"},
        {
            "type": "item.completed",
            "item": {
                "id": "item_2",
                "type": "file_change",
                "changes": [
                    {"path": "/work/run/solution.py", "kind": "update"},
                    {"path": "/work/run/new.py", "kind": "add"},
                ],
                "status": "completed",
            },
        },
        {
            "type": "item.completed",
            "item": {
                "id": "item_3",
                "type": "command_execution",
                "command": "bash -lc 'python -m pytest'",
                "aggregated_output": "1 failed",
                "exit_code": 1,
                "status": "failed",
            },
        },
        {"type": "item.completed", "item": {"id": "item_4", "type": "agent_message", "text": "Updated `solution.py`."}},
        {"type": "turn.completed", "usage": {"input_tokens": 3000, "cached_input_tokens": 2500, "output_tokens": 150}},
    ]
    write_jsonl("codex/exec.jsonl", records)
    write_jsonl(
        "codex/exec_failed.jsonl",
        [
            {"type": "thread.started", "thread_id": "t2"},
            {"type": "turn.started"},
            {"type": "item.completed", "item": {"id": "i0", "type": "error", "message": "model overloaded"}},
            {"type": "turn.failed", "error": {"message": "stream disconnected"}},
        ],
    )


def codex_exec_v06():
    """codex exec 0.6x additions (exec_events.rs): plan items streamed as item.plan.delta then
    completed, collab_tool_call items, request_user_input. Usage as before: fresh 300, read 700, out 90."""
    write_jsonl(
        "codex/exec_v06.jsonl",
        [
            {"type": "thread.started", "thread_id": "th-06"},
            {"type": "turn.started"},
            {"type": "item.plan.delta", "item_id": "p1", "delta": "1. Profile"},
            {"type": "item.plan.delta", "item_id": "p1", "delta": "\n2. Fuse"},
            {"type": "item.completed", "item": {"id": "p1", "type": "plan", "text": "1. Profile\n2. Fuse"}},
            {
                "type": "item.started",
                "item": {
                    "id": "c1",
                    "type": "collab_tool_call",
                    "tool": "spawn_agent",
                    "sender_thread_id": "th-06",
                    "receiver_thread_ids": ["th-child"],
                    "prompt": "Benchmark it",
                    "agents_states": {},
                    "status": "in_progress",
                },
            },
            {
                "type": "item.completed",
                "item": {
                    "id": "c1",
                    "type": "collab_tool_call",
                    "tool": "spawn_agent",
                    "sender_thread_id": "th-06",
                    "receiver_thread_ids": ["th-child"],
                    "prompt": "Benchmark it",
                    "agents_states": {"th-child": {"status": "completed", "message": "0.9 ms"}},
                    "status": "completed",
                },
            },
            {"type": "request_user_input", "id": "t1", "call_id": "q1", "questions": [{"question": "Keep fp8?"}]},
            {"type": "item.completed", "item": {"id": "m1", "type": "agent_message", "text": "Done."}},
            {
                "type": "turn.completed",
                "usage": {"input_tokens": 1000, "cached_input_tokens": 700, "output_tokens": 90},
            },
        ],
    )


def codex_collab():
    """A collab subagent: the parent's spawn call names the child thread, whose own rollout file
    lies beside. Totals: parent (in 3000, cached 1000, out 200) + child (in 800, cached 0, out 50)."""
    parent = [
        cx(
            0,
            "session_meta",
            {"id": "parent-thread", "cwd": "/work/run", "originator": "codex_exec", "cli_version": "0.60.0"},
        ),
        cx(0, "turn_context", {"cwd": "/work/run", "model": "gpt-5.1-codex", "effort": "xhigh"}),
        cx(
            1,
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Tune it"}]},
        ),
        cx(1, "event_msg", {"type": "task_started"}),
        cx(
            2,
            "response_item",
            {
                "type": "function_call",
                "name": "spawn_agent",
                "call_id": "call_spawn",
                "arguments": json.dumps({"message": "Benchmark solution.py"}),
            },
        ),
        cx(
            2,
            "event_msg",
            {"type": "collab_agent_spawn_begin", "call_id": "call_spawn", "sender_thread_id": "parent-thread"},
        ),
        cx(
            3,
            "event_msg",
            {
                "type": "collab_agent_spawn_end",
                "call_id": "call_spawn",
                "sender_thread_id": "parent-thread",
                "new_thread_id": "child-thread",
                "prompt": "Benchmark solution.py",
            },
        ),
        cx(
            3,
            "response_item",
            {"type": "function_call_output", "call_id": "call_spawn", "output": "spawned child-thread"},
        ),
        cx(
            9,
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "The child reports 0.8 ms."}],
            },
        ),
        tc(9, tok(3000, 1000, 200, 0), tok(3000, 1000, 200, 0)),
        cx(10, "event_msg", {"type": "task_complete"}),
    ]
    child = [
        cx(
            3,
            "session_meta",
            {"id": "child-thread", "cwd": "/work/run", "originator": "codex_exec", "cli_version": "0.60.0"},
        ),
        cx(
            4,
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "cc",
                "arguments": json.dumps({"cmd": "python bench.py"}),
            },
        ),
        cx(6, "response_item", {"type": "function_call_output", "call_id": "cc", "output": "0.8 ms"}),
        tc(6, tok(500, 0, 30, 0), tok(500, 0, 30, 0)),
        cx(
            7,
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "0.8 ms"}]},
        ),
        tc(7, tok(800, 0, 50, 0), tok(300, 0, 20, 0)),
    ]
    write_jsonl("codex_collab/rollout-2026-10-02T13-00-00-parent-thread.jsonl", parent)
    write_jsonl("codex_collab/rollout-2026-10-02T13-00-03-child-thread.jsonl", child)


# --- opencode ------------------------------------------------------------------------------------


def oc(ms, kind, part, sid="ses_main"):
    return {"type": kind, "timestamp": 1759400000000 + ms, "sessionID": sid, "part": part}


def oc_step(ms, reason, tokens, cost, sid="ses_main"):
    return oc(ms, "step_finish", {"type": "step-finish", "reason": reason, "cost": cost, "tokens": tokens}, sid)


def opencode_runs():
    """Steps: (in 1000, out 50, reasoning 20, cache r 0 w 500, $0.01), child (in 300, out 30, 0, r 0 w 0,
    $0.002), (in 200, out 80, reasoning 0, r 1500 w 0, $0.004): fresh 1500, read 1500, write 500,
    output 160, reasoning 20; cost 0.016."""
    before, after = "a = 1\nb = 2\n", "a = 1\nb = 3\n"
    records = [
        oc(0, "step_start", {"type": "step-start"}),
        oc(100, "reasoning", {"type": "reasoning", "text": "Edit b."}),
        oc(
            200,
            "tool_use",
            {
                "type": "tool",
                "tool": "edit",
                "callID": "call_e",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/work/run/cfg.py", "oldString": "b = 2", "newString": "b = 3"},
                    "output": "",
                    "title": "cfg.py",
                    "metadata": {
                        "diff": "Index: /work/run/cfg.py\n===================================================================\n"
                        "--- /work/run/cfg.py\n+++ /work/run/cfg.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n",
                        "filediff": {
                            "file": "/work/run/cfg.py",
                            "before": before,
                            "after": after,
                            "additions": 1,
                            "deletions": 1,
                        },
                    },
                    "time": {"start": 1759400000200, "end": 1759400000450},
                },
            },
        ),
        oc(
            300,
            "tool_use",
            {
                "type": "tool",
                "tool": "task",
                "callID": "call_t",
                "state": {
                    "status": "completed",
                    "input": {"description": "check", "prompt": "Check cfg.py", "subagent_type": "general"},
                    "output": "cfg ok",
                    "title": "check",
                    "metadata": {"sessionId": "ses_child"},
                    "time": {"start": 1759400000300, "end": 1759400001300},
                },
            },
        ),
        oc(310, "text", {"type": "text", "text": "cfg ok"}, sid="ses_child"),
        oc(
            320,
            "tool_use",
            {
                "type": "tool",
                "tool": "read",
                "callID": "call_r",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/work/run/cfg.py"},
                    "output": after,
                    "title": "cfg.py",
                    "metadata": {},
                    "time": {"start": 1759400000320, "end": 1759400000330},
                },
            },
            sid="ses_child",
        ),
        oc_step(
            400,
            "stop",
            {"input": 300, "output": 30, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            0.002,
            sid="ses_child",
        ),
        oc_step(
            1400, "tool-calls", {"input": 1000, "output": 50, "reasoning": 20, "cache": {"read": 0, "write": 500}}, 0.01
        ),
        oc(1500, "step_start", {"type": "step-start"}),
        oc(
            1600,
            "tool_use",
            {
                "type": "tool",
                "tool": "write",
                "callID": "call_w",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/work/run/new.txt", "content": "hello\n"},
                    "output": "",
                    "title": "new.txt",
                    "metadata": {},
                    "time": {"start": 1759400001600, "end": 1759400001610},
                },
            },
        ),
        oc(
            1700,
            "tool_use",
            {
                "type": "tool",
                "tool": "bash",
                "callID": "call_b",
                "state": {
                    "status": "error",
                    "input": {"command": "false"},
                    "error": "exit status 1",
                    "title": "false",
                    "metadata": {},
                    "time": {"start": 1759400001700, "end": 1759400001900},
                },
            },
        ),
        oc(2000, "text", {"type": "text", "text": "All done.", "time": {"start": 1759400002000, "end": 1759400002000}}),
        oc_step(2100, "stop", {"input": 200, "output": 80, "reasoning": 0, "cache": {"read": 1500, "write": 0}}, 0.004),
    ]
    write_jsonl("opencode/run.jsonl", records)
    write_jsonl(
        "opencode/error.jsonl",
        [
            oc(0, "step_start", {"type": "step-start"}),
            oc(10, "text", {"type": "text", "text": "Starting"}),
            {
                "type": "error",
                "timestamp": 1759400000100,
                "sessionID": "ses_main",
                "error": {"name": "APIError", "data": {"message": "rate limited"}},
            },
        ],
    )


def opencode_v1():
    """`opencode run --format json` as run.ts writes it in 1.x: text deltas sharing a part id, a tool
    part with no filediff, `tokens.total`, and the closing `done` line. Step 1 writes `output` with the
    reasoning inside (older getUsage: input 900 + cache 100 + output 60 == total 1060, reasoning 25);
    step 2 writes them apart (input 50 + cache 1000 + output 30 + reasoning 10 == total 1090):
    fresh 950, read 1100, output 65, reasoning 35."""
    records = [
        oc(0, "step_start", {"id": "prt_1", "type": "step-start", "snapshot": "abc"}),
        oc(50, "text", {"id": "prt_2", "type": "text", "text": "Editing ", "time": {"start": 1759400000050}}),
        oc(60, "text", {"id": "prt_2", "type": "text", "text": "the file.", "time": {"start": 1759400000050}}),
        oc(
            200,
            "tool_use",
            {
                "id": "prt_3",
                "type": "tool",
                "tool": "edit",
                "callID": "call_1",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/work/run/k.py", "oldString": "n = 1", "newString": "n = 2"},
                    "output": "Edit applied successfully.",
                    "title": "edit",
                    "metadata": {"result": {"ok": True}},
                    "time": {"start": 1759400000100, "end": 1759400000200},
                },
            },
        ),
        oc_step(
            300,
            "tool-calls",
            {"total": 1060, "input": 900, "output": 60, "reasoning": 25, "cache": {"read": 100, "write": 0}},
            0.003,
        ),
        oc(400, "step_start", {"id": "prt_4", "type": "step-start"}),
        oc(500, "text", {"id": "prt_5", "type": "text", "text": "Done."}),
        oc_step(
            600,
            "stop",
            {"total": 1090, "input": 50, "output": 30, "reasoning": 10, "cache": {"read": 1000, "write": 0}},
            0.001,
        ),
        {"type": "done", "timestamp": 1759400000700, "sessionID": "ses_main", "reason": "idle", "rejected": ["bash"]},
    ]
    write_jsonl("opencode/run_v1.jsonl", records)


# --- Kimi ----------------------------------------------------------------------------------------


def kimi_print():
    records = [
        {
            "role": "assistant",
            "content": [
                {"type": "think", "think": "Need to fix the kernel."},
                {"type": "text", "text": "Fixing the kernel."},
            ],
            "tool_calls": [
                {
                    "id": "tc_1",
                    "type": "function",
                    "function": {
                        "name": "StrReplaceFile",
                        "arguments": json.dumps(
                            {
                                "path": "/work/run/solution.py",
                                "edit": {"old": "x * 2", "new": "x.mul(2)", "replace_all": False},
                            }
                        ),
                    },
                },
                {
                    "id": "tc_2",
                    "type": "function",
                    "function": {
                        "name": "WriteFile",
                        "arguments": json.dumps({"path": "/work/run/log.txt", "content": "ok\n"}),
                    },
                },
            ],
        },
        {"role": "tool", "tool_call_id": "tc_1", "content": "<system>File edited.</system>"},
        {"role": "tool", "tool_call_id": "tc_2", "content": "<system>File written.</system>"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "tc_3",
                    "type": "function",
                    "function": {
                        "name": "Task",
                        "arguments": json.dumps(
                            {"description": "verify", "subagent_name": "coder", "prompt": "Run the tests"}
                        ),
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "tc_3", "content": "tests pass"},
        {"role": "assistant", "content": "The kernel now uses `mul`."},
    ]
    write_jsonl("kimi/print.jsonl", records)


def kw(t, kind, payload):
    return {"timestamp": 1759500000.0 + t, "message": {"type": kind, "payload": payload}}


def kimi_wire():
    """Steps' usage: (other 800, out 40, read 0, create 200) + (other 100, out 60, read 1000, create 0)
    + subagent (other 50, out 5, 0, 0): fresh 950, read 1000, write 200, output 105.
    Two parallel subagents (Task calls tc_a and tc_b) whose records interleave."""
    sub = lambda call, t, kind, payload: kw(
        t, "SubagentEvent", {"task_tool_call_id": call, "event": {"type": kind, "payload": payload}}
    )
    records = [
        {"type": "metadata", "protocol_version": "1.1"},
        kw(0, "TurnBegin", {"user_input": "Make it fast"}),
        kw(1, "StepBegin", {"n": 1}),
        kw(1.1, "ContentPart", {"type": "think", "think": "Plan: "}),
        kw(1.2, "ContentPart", {"type": "think", "think": "delegate."}),
        kw(1.3, "ContentPart", {"type": "text", "text": "Delegating "}),
        kw(1.4, "ContentPart", {"type": "text", "text": "two checks."}),
        kw(
            2,
            "ToolCall",
            {
                "type": "function",
                "id": "tc_a",
                "function": {
                    "name": "Task",
                    "arguments": json.dumps(
                        {"description": "bench", "subagent_name": "coder", "prompt": "Benchmark it"}
                    ),
                },
            },
        ),
        kw(
            2.1,
            "ToolCall",
            {
                "type": "function",
                "id": "tc_b",
                "function": {
                    "name": "Task",
                    "arguments": json.dumps({"description": "lint", "subagent_name": "coder", "prompt": "Lint it"}),
                },
            },
        ),
        kw(
            2.2,
            "StatusUpdate",
            {
                "context_usage": 0.1,
                "token_usage": {"input_other": 800, "output": 40, "input_cache_read": 0, "input_cache_creation": 200},
            },
        ),
        sub("tc_b", 3, "StepBegin", {"n": 1}),
        sub("tc_a", 3.1, "StepBegin", {"n": 1}),
        sub("tc_b", 3.2, "ContentPart", {"type": "text", "text": "lint clean"}),
        sub(
            "tc_a",
            3.3,
            "ToolCall",
            {
                "type": "function",
                "id": "tc_a1",
                "function": {"name": "Shell", "arguments": json.dumps({"command": "python bench.py"})},
            },
        ),
        sub(
            "tc_a",
            4,
            "ToolResult",
            {
                "tool_call_id": "tc_a1",
                "return_value": {"is_error": False, "output": "0.9 ms", "message": "", "display": []},
            },
        ),
        sub(
            "tc_a",
            4.1,
            "StatusUpdate",
            {"token_usage": {"input_other": 50, "output": 5, "input_cache_read": 0, "input_cache_creation": 0}},
        ),
        kw(5, "ToolResult", {"tool_call_id": "tc_b", "return_value": {"is_error": False, "output": "lint clean"}}),
        kw(5.1, "ToolResult", {"tool_call_id": "tc_a", "return_value": {"is_error": False, "output": "0.9 ms"}}),
        kw(6, "StepBegin", {"n": 2}),
        kw(
            6.1,
            "ToolCall",
            {
                "type": "function",
                "id": "tc_s",
                "function": {"name": "Shell", "arguments": json.dumps({"command": "cat > out.txt <<EOF\nfast\nEOF"})},
            },
        ),
        kw(6.5, "ToolResult", {"tool_call_id": "tc_s", "return_value": {"is_error": False, "output": ""}}),
        kw(7, "StepBegin", {"n": 3}),
        kw(7.1, "ContentPart", {"type": "text", "text": "Both checks pass."}),
        kw(
            7.2,
            "StatusUpdate",
            {"token_usage": {"input_other": 100, "output": 60, "input_cache_read": 1000, "input_cache_creation": 0}},
        ),
        kw(7.3, "TurnEnd", {}),
    ]
    write_jsonl("kimi/wire.jsonl", records)
    loop = lambda t, event: {"timestamp": 1759500000.0 + t, "type": "context.append_loop_event", "event": event}
    write_jsonl(
        "kimi/wire_loop_events.jsonl",
        [
            kw(0, "TurnBegin", {"user_input": "Hi"}),
            loop(1, {"type": "step.begin", "n": 1}),
            loop(1.1, {"type": "content.part", "part": {"type": "text", "text": "Reading."}}),
            loop(
                1.2,
                {
                    "type": "tool.call",
                    "tool_call": {
                        "id": "x1",
                        "function": {"name": "ReadFile", "arguments": json.dumps({"path": "a.py"})},
                    },
                },
            ),
            loop(
                1.5,
                {
                    "type": "tool.result",
                    "tool_call_id": "x1",
                    "return_value": {"is_error": True, "output": "", "message": "not found"},
                },
            ),
            loop(
                1.6,
                {
                    "type": "step.end",
                    "usage": {"input_other": 10, "output": 4, "input_cache_read": 20, "input_cache_creation": 0},
                },
            ),
        ],
    )


MS = 1_790_000_000_000  # Kimi Code writes `time` in Unix milliseconds


def kc_loop(dt, event):
    return {"type": "context.append_loop_event", "time": MS + dt, "event": event}


def kc_usage(dt, scope, other, out, read, create, turn=0):
    return {
        "type": "usage.record",
        "time": MS + dt,
        "model": "kimi-k2.7-code",
        "usageScope": scope,
        "turnId": turn,
        "usage": {"inputOther": other, "output": out, "inputCacheRead": read, "inputCacheCreation": create},
    }


def kimi_code_wire():
    """Kimi Code, wire protocol 1.4 (agents/<agent>/wire.jsonl), written from the documented shape.

    Main agent, two steps: step.end usage (other 1200, out 80, read 0, create 3000) and
    (other 150, out 40, read 3000, create 0). Each is repeated by a `usage.record` of scope
    "turn", and a "session" record holds the running total: none of these may count again.
    Subagent agent-0 (its own file): one step (other 300, out 20, read 500, create 0).
    Totals: fresh 1650, cache read 3500, cache write 3000, output 140; total 8290.
    """
    base = "kimi_code/sessions/wd_run/sess-k/agents"
    main = [
        {"type": "metadata", "protocol_version": "1.4", "created_at": MS},
        {"type": "config.update", "time": MS, "modelAlias": "kimi-k2.7-code", "cwd": "/work/run"},
        {"type": "turn.prompt", "time": MS + 10, "turnId": 0, "input": [{"type": "text", "text": "Make it fast"}]},
        {
            "type": "context.append_message",
            "time": MS + 11,
            "message": {
                "role": "user",
                "origin": {"kind": "user"},
                "content": [{"type": "text", "text": "Make it fast"}],
                "toolCalls": [],
                "id": "m1",
            },
        },
        kc_loop(100, {"type": "step.begin", "step": 1, "uuid": "st1", "turnId": "0"}),
        kc_loop(110, {"type": "content.part", "stepUuid": "st1", "part": {"type": "think", "think": "Profile "}}),
        kc_loop(120, {"type": "content.part", "stepUuid": "st1", "part": {"type": "think", "think": "first."}}),
        kc_loop(130, {"type": "content.part", "stepUuid": "st1", "part": {"type": "text", "text": "Editing."}}),
        kc_loop(
            140,
            {
                "type": "tool.call",
                "stepUuid": "st1",
                "toolCallId": "tool_1",
                "name": "StrReplaceFile",
                "args": {"path": "/work/run/solution.py", "edit": {"old": "x * 2", "new": "x.mul(2)"}},
            },
        ),
        kc_loop(
            150,
            {
                "type": "tool.call",
                "stepUuid": "st1",
                "toolCallId": "tool_2",
                "name": "Agent",
                "args": {"description": "bench", "prompt": "Benchmark it"},
            },
        ),
        kc_loop(
            900,
            {"type": "tool.result", "toolCallId": "tool_1", "result": {"output": "Replaced 1", "isError": False}},
        ),
        kc_loop(
            1900,
            {"type": "tool.result", "toolCallId": "tool_2", "result": {"output": "0.9 ms", "isError": False}},
        ),
        kc_loop(
            1910,
            {
                "type": "step.end",
                "uuid": "st1",
                "step": 1,
                "finishReason": "tool_use",
                "usage": {"inputOther": 1200, "output": 80, "inputCacheRead": 0, "inputCacheCreation": 3000},
            },
        ),
        kc_usage(1911, "turn", 1200, 80, 0, 3000),
        kc_usage(1912, "session", 1200, 80, 0, 3000),
        kc_loop(2000, {"type": "step.begin", "step": 2, "uuid": "st2", "turnId": "0"}),
        kc_loop(2010, {"type": "content.part", "stepUuid": "st2", "part": {"type": "text", "text": "Done: "}}),
        kc_loop(2020, {"type": "content.part", "stepUuid": "st2", "part": {"type": "text", "text": "0.9 ms."}}),
        kc_loop(
            2100,
            {
                "type": "step.end",
                "uuid": "st2",
                "step": 2,
                "finishReason": "end_turn",
                "usage": {"inputOther": 150, "output": 40, "inputCacheRead": 3000, "inputCacheCreation": 0},
            },
        ),
        kc_usage(2101, "turn", 150, 40, 3000, 0),
        kc_usage(2102, "session", 1350, 120, 3000, 3000),
        {"type": "turn.ended", "time": MS + 2200, "turnId": 0, "reason": "completed"},
        {"type": "brand.new_record", "time": MS + 2300, "detail": "kept as a raw event"},
    ]
    write_jsonl(f"{base}/main/wire.jsonl", main)
    write_jsonl(
        f"{base}/agent-0/wire.jsonl",
        [
            {"type": "metadata", "protocol_version": "1.4"},
            {
                "type": "context.append_message",
                "time": MS + 200,
                "message": {
                    "role": "user",
                    "origin": {"kind": "system_trigger"},
                    "content": [{"type": "text", "text": "Benchmark it"}],
                },
            },
            kc_loop(210, {"type": "step.begin", "step": 1, "uuid": "sa1"}),
            kc_loop(
                220,
                {
                    "type": "tool.call",
                    "stepUuid": "sa1",
                    "toolCallId": "tool_s",
                    "name": "Shell",
                    "args": "{\"command\": \"python bench.py\"}",
                },
            ),
            kc_loop(
                800,
                {
                    "type": "tool.result",
                    "toolCallId": "tool_s",
                    "result": {"output": [{"type": "text", "text": "0.9 ms"}]},
                },
            ),
            kc_loop(
                810,
                {
                    "type": "step.end",
                    "uuid": "sa1",
                    "usage": {"inputOther": 300, "output": 20, "inputCacheRead": 500, "inputCacheCreation": 0},
                },
            ),
            kc_usage(811, "turn", 300, 20, 500, 0),
        ],
    )
    # Usage only in usage.record lines (no step.end usage): the turn records count, the
    # session record (a running total) does not: fresh 70, read 30, write 0, output 12.
    write_jsonl(
        "kimi/code_usage_records_only.jsonl",
        [
            {"type": "metadata", "protocol_version": "1.4"},
            {"type": "turn.prompt", "time": MS, "input": "Hi"},
            kc_loop(10, {"type": "step.begin", "step": 1, "uuid": "s1"}),
            kc_loop(20, {"type": "content.part", "part": {"type": "text", "text": "Hello."}}),
            kc_loop(30, {"type": "step.end", "uuid": "s1", "finishReason": "end_turn"}),
            kc_usage(31, "turn", 50, 8, 10, 0),
            kc_usage(32, "turn", 20, 4, 20, 0),
            kc_usage(33, "session", 70, 12, 30, 0),
        ],
    )
    # A protocol this viewer does not know, whose usage moved to fields it cannot read.
    write_jsonl(
        "kimi/wire_v2.jsonl",
        [
            {"type": "metadata", "protocol_version": "2.0"},
            {"type": "turn.prompt", "time": MS, "input": "Hi"},
            kc_loop(10, {"type": "step.begin", "step": 1, "uuid": "s1"}),
            kc_loop(20, {"type": "content.part", "part": {"type": "text", "text": "Hello."}}),
            kc_loop(30, {"type": "step.end", "uuid": "s1", "usage": {"tokens": {"in": 50, "out": 8}}}),
        ],
    )


# --- Cursor, droid -------------------------------------------------------------------------------


def cursor():
    records = [
        {
            "type": "system",
            "subtype": "init",
            "apiKeySource": "env",
            "cwd": "/work/run",
            "session_id": "cur-1",
            "model": "gpt-5",
            "permissionMode": "default",
        },
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "text", "text": "Speed it up"}]},
            "session_id": "cur-1",
        },
        {
            "type": "thinking",
            "subtype": "delta",
            "text": "Let me ",
            "session_id": "cur-1",
            "timestamp_ms": 1759700000000,
        },
        {"type": "thinking", "subtype": "delta", "text": "look.", "session_id": "cur-1", "timestamp_ms": 1759700000100},
        {"type": "thinking", "subtype": "completed", "session_id": "cur-1", "timestamp_ms": 1759700000200},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Checking the file."}]},
            "session_id": "cur-1",
        },
        {
            "type": "tool_call",
            "subtype": "started",
            "call_id": "cc1",
            "tool_call": {"shellToolCall": {"args": {"command": "ls"}}},
            "session_id": "cur-1",
            "timestamp_ms": 1759700001000,
        },
        {
            "type": "tool_call",
            "subtype": "completed",
            "call_id": "cc1",
            "tool_call": {
                "shellToolCall": {
                    "args": {"command": "ls"},
                    "result": {"success": {"stdout": "solution.py\n", "stderr": "", "exitCode": 0}},
                }
            },
            "session_id": "cur-1",
            "timestamp_ms": 1759700001500,
        },
        {
            "type": "tool_call",
            "subtype": "started",
            "call_id": "cc2",
            "tool_call": {
                "editToolCall": {
                    "args": {"path": "/work/run/solution.py", "strReplace": {"oldText": "x * 2", "newText": "x.mul(2)"}}
                }
            },
            "session_id": "cur-1",
        },
        {
            "type": "tool_call",
            "subtype": "completed",
            "call_id": "cc2",
            "tool_call": {
                "editToolCall": {
                    "args": {
                        "path": "/work/run/solution.py",
                        "strReplace": {"oldText": "x * 2", "newText": "x.mul(2)"},
                    },
                    "result": {
                        "success": {
                            "path": "/work/run/solution.py",
                            "linesAdded": 1,
                            "linesRemoved": 1,
                            "diffString": "@@ -4 +4 @@\n-    return x * 2\n+    return x.mul(2)\n",
                        }
                    },
                }
            },
            "session_id": "cur-1",
        },
        {
            "type": "tool_call",
            "subtype": "started",
            "call_id": "cc3",
            "tool_call": {
                "taskToolCall": {
                    "args": {"description": "review", "prompt": "Review the change", "subagentType": "reviewer"}
                }
            },
            "session_id": "cur-1",
        },
        {
            "type": "tool_call",
            "subtype": "completed",
            "call_id": "cc3",
            "tool_call": {
                "taskToolCall": {
                    "args": {"description": "review", "prompt": "Review the change"},
                    "result": {"success": {"result": "Looks good"}},
                }
            },
        },
        {
            "type": "tool_call",
            "subtype": "started",
            "call_id": "cc4",
            "tool_call": {"writeToolCall": {"args": {"path": "/work/run/README.md", "fileText": "# Fast\n"}}},
        },
        {
            "type": "tool_call",
            "subtype": "completed",
            "call_id": "cc4",
            "tool_call": {
                "writeToolCall": {
                    "args": {"path": "/work/run/README.md", "fileText": "# Fast\n"},
                    "result": {"error": {"message": "permission denied"}},
                }
            },
        },
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            "session_id": "cur-1",
        },
        {
            "type": "result",
            "subtype": "success",
            "duration_ms": 8000,
            "is_error": False,
            "result": "Done.",
            "session_id": "cur-1",
            "usage": {"inputTokens": 1200, "outputTokens": 340, "cacheReadTokens": 5000, "cacheWriteTokens": 800},
        },
    ]
    write_jsonl("cursor/run.jsonl", records)
    # The same run with a result line that carries no usage (as some CLI builds write it).
    without = [dict(r) for r in records]
    del without[-1]["usage"]
    write_jsonl("cursor/no_usage.jsonl", without)


def droid():
    d = "droid_run"
    ts = lambda s: 1759800000000 + s
    records = [
        {
            "type": "system",
            "subtype": "init",
            "cwd": "/work/run",
            "session_id": "droid-1",
            "tools": ["Read", "Edit", "Execute"],
            "model": "claude-sonnet-4-5",
            "reasoning_effort": "high",
        },
        {"type": "message", "role": "user", "id": "m1", "text": "Make it fast", "timestamp": ts(0)},
        {"type": "reasoning", "text": "Edit then test.", "timestamp": ts(100)},
        {
            "type": "tool_call",
            "id": "d1",
            "toolName": "Edit",
            "parameters": {"file_path": "/work/run/solution.py", "old_str": "x * 2", "new_str": "x.mul(2)"},
            "timestamp": ts(200),
        },
        {"type": "tool_result", "id": "d1", "isError": False, "value": "Edited", "timestamp": ts(400)},
        {
            "type": "tool_call",
            "id": "d2",
            "toolName": "Create",
            "parameters": {"file_path": "/work/run/t.py", "content": "assert True\n"},
            "timestamp": ts(500),
        },
        {"type": "tool_result", "id": "d2", "isError": False, "value": "Created", "timestamp": ts(600)},
        {
            "type": "tool_call",
            "id": "d3",
            "toolName": "Task",
            "parameters": {"subagent_type": "tester", "description": "test", "prompt": "Run the tests"},
            "timestamp": ts(700),
        },
        {
            "type": "tool_result",
            "id": "d3",
            "isError": False,
            "value": {"sessionId": "droid-child", "result": "1 passed"},
            "timestamp": ts(5700),
        },
        {"type": "message", "role": "assistant", "id": "m2", "text": "Done: 1 passed.", "timestamp": ts(6000)},
        {
            "type": "completion",
            "finalText": "Done: 1 passed.",
            "numTurns": 3,
            "durationMs": 6100,
            "session_id": "droid-1",
        },
    ]
    write_jsonl(f"{d}/droid-1.jsonl", records)
    write_json(
        f"{d}/settings.json",
        {
            "model": "claude-sonnet-4-5",
            "reasoningEffort": "high",
            "tokenUsage": {
                "inputTokens": 2100,
                "outputTokens": 430,
                "cacheCreationTokens": 900,
                "cacheReadTokens": 12000,
                "thinkingTokens": 150,
            },
        },
    )


# --- Gemini --------------------------------------------------------------------------------------


def gemini():
    """Message tokens: g1 (input 5000, cached 3000, output 100, thoughts 50, tool 10), g2 (input 6000,
    cached 5000, output 40, thoughts 0, tool 0): fresh 3010, read 8000, output 140, reasoning 50."""
    messages = [
        {"id": "m1", "timestamp": "2026-10-03T08:00:00.000Z", "type": "user", "content": "Fix the kernel"},
        {
            "id": "g1",
            "timestamp": "2026-10-03T08:00:05.000Z",
            "type": "gemini",
            "content": "Replacing the multiply.",
            "model": "gemini-2.5-pro",
            "thoughts": [{"subject": "Plan", "description": "Use mul.", "timestamp": "2026-10-03T08:00:04.000Z"}],
            "tokens": {"input": 5000, "output": 100, "cached": 3000, "thoughts": 50, "tool": 10, "total": 5160},
            "toolCalls": [
                {
                    "id": "replace-1",
                    "name": "replace",
                    "args": {"file_path": "/work/run/solution.py", "old_string": "x * 2", "new_string": "x.mul(2)"},
                    "status": "success",
                    "timestamp": "2026-10-03T08:00:06.000Z",
                    "result": [
                        {
                            "functionResponse": {
                                "id": "replace-1",
                                "name": "replace",
                                "response": {
                                    "output": "Successfully modified file: /work/run/solution.py (1 replacements)."
                                },
                            }
                        }
                    ],
                    "resultDisplay": {
                        "fileDiff": "Index: solution.py\n===================================================================\n"
                        "--- solution.py\tCurrent\n+++ solution.py\tProposed\n@@ -1,4 +1,4 @@\n import torch\n \n def kernel(x):\n"
                        "-    return x * 2\n+    return x.mul(2)\n",
                        "fileName": "solution.py",
                        "originalContent": KERNEL_OLD,
                        "newContent": KERNEL_NEW,
                    },
                },
                {
                    "id": "shell-1",
                    "name": "run_shell_command",
                    "args": {"command": "pytest -q"},
                    "status": "error",
                    "result": [
                        {
                            "functionResponse": {
                                "id": "shell-1",
                                "name": "run_shell_command",
                                "response": {"error": "1 failed"},
                            }
                        }
                    ],
                },
            ],
        },
        {"id": "i1", "timestamp": "2026-10-03T08:00:07.000Z", "type": "info", "content": "Switched to fallback model"},
        {
            "id": "g2",
            "timestamp": "2026-10-03T08:00:09.000Z",
            "type": "gemini",
            "content": "Fixed.",
            "model": "gemini-2.5-pro",
            "tokens": {"input": 6000, "output": 40, "cached": 5000, "thoughts": 0, "tool": 0, "total": 6040},
        },
    ]
    write_json(
        "gemini/session-2026-10-03.json",
        {
            "sessionId": "gem-1",
            "projectHash": "abc",
            "startTime": "2026-10-03T08:00:00.000Z",
            "lastUpdated": "2026-10-03T08:00:09.000Z",
            "messages": messages,
        },
    )
    # 0.39+ JSONL (chatRecordingService.ts): a metadata line, each message written again in full (same
    # id) when it changes, and `$set` metadata updates (g1 is first written with its call pending).
    g1 = dict(messages[1])
    g1_pending = dict(g1, toolCalls=[dict(g1["toolCalls"][0], status="executing", result=None)], tokens=None)
    lines = [
        {
            "sessionId": "gem-2",
            "projectHash": "abc",
            "startTime": "2026-10-03T08:00:00.000Z",
            "lastUpdated": "2026-10-03T08:00:00.000Z",
            "kind": "main",
        },
        messages[0],
        {"$set": {"lastUpdated": "2026-10-03T08:00:01.000Z"}},
        g1_pending,
        g1,
        {"$set": {"lastUpdated": "2026-10-03T08:00:06.000Z"}},
        messages[2],
        dict(messages[3], id="g2"),
        {"$set": {"lastUpdated": "2026-10-03T08:00:09.000Z", "summary": "Fix the kernel"}},
    ]
    write_jsonl("gemini/session-2026-10-03.jsonl", lines)
    stream = [
        {"type": "init", "timestamp": "2026-10-03T09:00:00.000Z", "session_id": "gem-s", "model": "gemini-2.5-flash"},
        {"type": "message", "timestamp": "2026-10-03T09:00:00.100Z", "role": "user", "content": "Fix it"},
        {
            "type": "message",
            "timestamp": "2026-10-03T09:00:01.000Z",
            "role": "assistant",
            "content": "I will ",
            "delta": True,
        },
        {
            "type": "message",
            "timestamp": "2026-10-03T09:00:01.100Z",
            "role": "assistant",
            "content": "write it.",
            "delta": True,
        },
        {
            "type": "tool_use",
            "timestamp": "2026-10-03T09:00:02.000Z",
            "tool_name": "write_file",
            "tool_id": "w-1",
            "parameters": {"file_path": "/work/run/k.py", "content": "K = 1\n"},
        },
        {
            "type": "tool_result",
            "timestamp": "2026-10-03T09:00:02.500Z",
            "tool_id": "w-1",
            "status": "success",
            "output": "ok",
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
            "timestamp": "2026-10-03T09:00:03.500Z",
            "status": "success",
            "stats": {
                "total_tokens": 4300,
                "input_tokens": 4000,
                "output_tokens": 300,
                "cached": 2500,
                "duration_ms": 3500,
                "tool_calls": 1,
                "models": {
                    "gemini-2.5-flash": {
                        "total_tokens": 4300,
                        "input_tokens": 4000,
                        "output_tokens": 300,
                        "cached": 2500,
                    }
                },
            },
        },
    ]
    write_jsonl("gemini/stream.jsonl", stream)


def gemini_v056():
    """gemini-cli 0.56 (5411f11): a JSONL session with a rewind and a history checkpoint, and a
    stream-json run with per-model stats.

    Session tokens: g1 (input 5000, cached 3000, output 100, thoughts 50, tool 10), g2 (rewound: input
    6000, cached 5000, output 20, thoughts 5), g3 (input 7000, cached 6000, output 30, thoughts 0):
    fresh 4010, read 14000, output 150, reasoning 55.
    Stream: pro (input_tokens 4000 = cached 2500 + input 1500, output 300, total 4420: 120 thoughts)
    and flash-lite (800 = 0 + 800, output 20, total 820): fresh 2300, read 2500, output 320, reasoning 120."""
    t = "2026-11-02T10:00:{:02d}.000Z".format
    tokens = {"input": 5000, "output": 100, "cached": 3000, "thoughts": 50, "tool": 10, "total": 5160}
    call = {
        "id": "replace-9",
        "name": "replace",
        "args": {"file_path": "/work/run/k.py", "old_string": "1", "new_string": "2", "allow_multiple": True},
        "status": "success",
        "timestamp": t(3),
        "displayName": "Edit",
        "description": "Replaces text within a file.",
        "result": [{"functionResponse": {"id": "replace-9", "name": "replace", "response": {"output": "Replaced 2."}}}],
    }
    u1 = {"id": "u1", "timestamp": t(0), "type": "user", "content": [{"text": "Make every 1 a 2"}]}
    g1 = {
        "id": "g1",
        "timestamp": t(2),
        "type": "gemini",
        "content": "",
        "model": "gemini-3-pro-preview",
        "thoughts": [{"subject": "Plan", "description": "Replace all.", "timestamp": t(1)}],
        "tokens": tokens,
        "toolCalls": [call],
    }
    u3 = {"id": "u3", "timestamp": t(20), "type": "user", "content": "Now say done"}
    g3 = {
        "id": "g3",
        "timestamp": t(21),
        "type": "gemini",
        "content": "Done.",
        "model": "gemini-3-pro-preview",
        "thoughts": [],
        "tokens": {"input": 7000, "output": 30, "cached": 6000, "thoughts": 0, "tool": 0, "total": 7030},
    }
    lines = [
        {"sessionId": "gem-3", "projectHash": "def", "startTime": t(0), "lastUpdated": t(0), "kind": "main"},
        u1,
        dict(g1, toolCalls=[dict(call, status="executing", result=None)], tokens=None),
        g1,
        {"id": "u2", "timestamp": t(10), "type": "user", "content": "Undo that"},
        {
            "id": "g2",
            "timestamp": t(11),
            "type": "gemini",
            "content": "Reverting.",
            "model": "gemini-3-pro-preview",
            "tokens": {"input": 6000, "output": 20, "cached": 5000, "thoughts": 5, "tool": 0, "total": 6025},
        },
        {"$rewindTo": "u2"},
        {"$set": {"lastUpdated": t(19)}},
        u3,
        g3,
        {
            "$set": {
                "lastUpdated": t(22),
                "messages": [
                    u1,
                    dict(g1, content=[{"functionCall": {"id": "replace-9", "name": "replace", "args": {}}}]),
                    {
                        "id": "h1",
                        "timestamp": t(22),
                        "type": "user",
                        "content": [{"functionResponse": {"id": "replace-9", "name": "replace", "response": {}}}],
                    },
                    u3,
                    g3,
                ],
            }
        },
    ]
    write_jsonl("gemini/session-v056.jsonl", lines)
    ts = "2026-11-02T11:00:0{}.000Z".format
    model = {"gemini-3-pro-preview": (4000, 2500, 300, 4420), "gemini-2.5-flash-lite": (800, 0, 20, 820)}
    per_model = {
        name: {"total_tokens": tot, "input_tokens": inp, "output_tokens": out, "cached": c, "input": inp - c}
        for name, (inp, c, out, tot) in model.items()
    }
    stream = [
        {"type": "init", "timestamp": ts(0), "session_id": "gem-s2", "model": "auto-gemini-3"},
        {"type": "message", "timestamp": ts(0), "role": "user", "content": "Say hi"},
        {"type": "message", "timestamp": ts(1), "role": "assistant", "content": "Hi", "delta": True},
        {"type": "error", "timestamp": ts(2), "severity": "warning", "message": "Loop detected, stopping execution"},
        {
            "type": "result",
            "timestamp": ts(3),
            "status": "success",
            "stats": {
                "total_tokens": 5240,
                "input_tokens": 4800,
                "output_tokens": 320,
                "cached": 2500,
                "input": 2300,
                "duration_ms": 3000,
                "tool_calls": 0,
                "models": per_model,
            },
        },
    ]
    write_jsonl("gemini/stream_v056.jsonl", stream)


# --- a run directory -----------------------------------------------------------------------------


def run_dir():
    d = ROOT / "run_dir"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "claude_stream/edit.jsonl", d / "transcript.jsonl")
    (d / "solution.py").write_text(KERNEL_NEW, encoding="utf-8")
    write_json(
        "run_dir/result.json",
        {
            "schema": "ceiling.result/1",
            "problem": "softmax",
            "solution": {"path": "solution.py", "sha256": "ab12"},
            "score": {"geomean_fraction": 0.42},
            "shapes": [
                {
                    "name": "small",
                    "params": {"n": 1024},
                    "status": "ok",
                    "median_ms": 0.0123,
                    "tflops": 1.5,
                    "gbps": 800.0,
                    "fraction": 0.4,
                },
                {"name": "held-out <b>big</b>", "params": {"n": 65536}, "status": "wrong", "fraction": None},
            ],
        },
    )
    (d / "logs").mkdir(exist_ok=True)
    (d / "logs" / "agent.txt").write_text("starting agent\n\x1b[32mok\x1b[0m\n", encoding="utf-8")


def main() -> None:
    for make in (
        claude_stream_edit,
        claude_stream_subagents,
        claude_stream_max_turns,
        claude_stream_truncated,
        claude_stream_hostile,
        claude_session_v21,
        claude_session_legacy,
        codex_rollout_patch,
        codex_rollout_aborted,
        codex_exec,
        codex_exec_v06,
        codex_collab,
        opencode_runs,
        opencode_v1,
        kimi_print,
        kimi_wire,
        kimi_code_wire,
        cursor,
        droid,
        gemini,
        gemini_v056,
        run_dir,
    ):
        make()


if __name__ == "__main__":
    main()
