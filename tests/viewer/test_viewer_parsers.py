"""Each fixture parsed into the normalised model: format, metadata, exact token totals (worked
out by hand in make_fixtures.py's docstrings), completeness, subagent tree shapes and diffs."""

import json
import shutil
from pathlib import Path

import pytest

from viewer import TokenUsage, load_transcript
from viewer.detect import detect_format

FIXTURES = Path(__file__).parent / "fixtures"

KERNEL_NEW = "import torch\n\ndef kernel(x):\n    return x.mul(2)\n"


def tree(subagents):
    return [(s.key, s.parent_tool_id, s.agent_type, tree(s.children)) for s in subagents]


def kinds(events):
    return [e.kind for e in events]


def changes_by_path(t):
    return {f.path: f for f in t.file_changes}


@pytest.mark.parametrize(
    "rel, fmt",
    [
        ("claude_stream/edit.jsonl", "claude-stream"),
        ("claude_stream/truncated.jsonl", "claude-stream"),
        ("claude_session_v21/sess-1.jsonl", "claude-session"),
        ("claude_session_legacy/sess-2.jsonl", "claude-session"),
        ("codex/rollout-aborted.jsonl", "codex-rollout"),
        ("codex/exec.jsonl", "codex-exec"),
        ("opencode/run.jsonl", "opencode"),
        ("opencode/run_v1.jsonl", "opencode"),
        ("kimi/print.jsonl", "kimi-print"),
        ("kimi/wire.jsonl", "kimi-wire"),
        ("kimi/wire_loop_events.jsonl", "kimi-wire"),
        ("kimi_code/sessions/wd_run/sess-k/agents/main/wire.jsonl", "kimi-wire"),
        ("kimi/code_usage_records_only.jsonl", "kimi-wire"),
        ("kimi/wire_v2.jsonl", "kimi-wire"),
        ("cursor/no_usage.jsonl", "cursor"),
        ("cursor/run.jsonl", "cursor"),
        ("droid_run/droid-1.jsonl", "droid"),
        ("gemini/session-2026-10-03.json", "gemini-session"),
        ("gemini/session-2026-10-03.jsonl", "gemini-session"),
        ("gemini/stream.jsonl", "gemini-stream"),
        ("gemini/session-v056.jsonl", "gemini-session"),
        ("gemini/stream_v056.jsonl", "gemini-stream"),
    ],
)
def test_format_is_detected(rel, fmt):
    assert detect_format(FIXTURES / rel) == fmt


def test_format_can_be_forced_and_unknown_names_are_refused():
    t = load_transcript(FIXTURES / "kimi/print.jsonl", format="kimi-print")
    assert t.format == "kimi-print"
    with pytest.raises(ValueError, match="unknown format 'nope'"):
        load_transcript(FIXTURES / "kimi/print.jsonl", format="nope")


# --- Claude Code -------------------------------------------------------------------------------


def test_claude_stream_edit_run():
    t = load_transcript(FIXTURES / "claude_stream/edit.jsonl")
    assert (t.format, t.harness, t.model, t.session_id, t.cwd) == (
        "claude-stream",
        "Claude Code",
        "claude-opus-4-5",
        "s-claude-1",
        "/work/run",
    )
    assert t.tokens == TokenUsage(fresh_input=135, cache_read=6300, cache_write=2250, output=470)
    assert t.tokens.total == 9155
    assert (t.cost_usd, t.duration_s, t.turns, t.tool_calls, t.complete) == (0.1234, 65.4, 4, 3, True)
    assert kinds(t.events) == [
        "system",
        "reasoning",
        "assistant",
        "tool",
        "tool",
        "tool",
        "system",
        "assistant",
        "system",
    ]
    # The badge of msg_01 sits on its first event, counted once although three lines repeat it.
    assert t.events[1].tokens == TokenUsage(fresh_input=100, cache_read=0, cache_write=2000, output=50)
    assert t.events[2].tokens is None
    assert t.events[6].subtype == "compaction"


def test_claude_stream_edit_diffs_prefer_the_tools_structured_patch():
    files = changes_by_path(load_transcript(FIXTURES / "claude_stream/edit.jsonl"))
    solution = files["/work/run/solution.py"]
    assert solution.changes[0].source == "tool"
    assert solution.changes[0].diff == (
        "--- a/work/run/solution.py\n+++ b/work/run/solution.py\n@@ -2,3 +2,3 @@\n \n def kernel(x):\n"
        "-    return x * 2\n+    return x.mul(2)\n"
    )
    assert solution.final_content == KERNEL_NEW  # originalFile replayed with the edit
    notes = files["/work/run/notes.md"]
    assert (notes.changes[0].action, notes.final_content) == ("create", "# Notes\nuse mul\n")
    assert (
        notes.combined_diff == "--- a/work/run/notes.md\n+++ b/work/run/notes.md\n@@ -0,0 +1,2 @@\n+# Notes\n+use mul\n"
    )
    bench = files["/work/run/bench.sh"]
    assert (bench.changes[0].source, bench.final_content) == ("heredoc", "python -m scoring solution.py\n")


def test_claude_stream_parallel_subagents_are_placed_by_id_not_position():
    t = load_transcript(FIXTURES / "claude_stream/parallel_subagents.jsonl")
    assert tree(t.subagents) == [
        ("toolu_A", "toolu_A", "general-purpose", [("toolu_A_nested", "toolu_A_nested", "Bash", [])]),
        ("toolu_B", "toolu_B", "Explore", []),
    ]
    a, b = t.subagents
    nested = a.children[0]
    assert b.events[0].tool_input == {"file_path": "/work/run/README.md"}  # B spoke first in the file
    assert [e.text for e in a.events if e.kind == "assistant"] == ["Profile done: 1.23 ms."]
    assert (a.prompt, a.description, len(a.events), a.tool_calls) == ("Profile the kernel", "Profile kernel", 2, 1)
    assert a.tokens == TokenUsage(fresh_input=5, cache_read=600, cache_write=600, output=39)
    assert nested.tokens.total == 621 and b.tokens.total == 1036
    assert kinds(b.events) == ["tool", "assistant", "system"]
    assert t.tokens == TokenUsage(fresh_input=15, cache_read=1110, cache_write=1000, output=125)  # the result line's
    assert t.tool_calls == 5


def test_claude_stream_budget_hit_is_incomplete():
    t = load_transcript(FIXTURES / "claude_stream/max_turns.jsonl")
    assert not t.complete
    assert t.incomplete_reason == "budget hit: maximum number of turns reached"
    assert [e.is_error for e in t.events if e.kind == "tool"] == [False, True]


def test_claude_stream_truncated_counts_each_message_once():
    t = load_transcript(FIXTURES / "claude_stream/truncated.jsonl")
    assert t.tokens == TokenUsage(fresh_input=30, cache_read=700, cache_write=400, output=60)
    assert not t.complete and "no final record" in t.incomplete_reason
    raw = t.events[-1]
    assert (raw.kind, raw.line, raw.source) == ("raw", 8, "truncated.jsonl")
    assert raw.text.startswith('{"type":"user"')
    pending = [e for e in t.events if e.tool_id == "toolu_pending"][0]
    assert pending.result is None


def test_claude_session_v21_nested_subagents_from_meta_files():
    t = load_transcript(FIXTURES / "claude_session_v21")  # a directory: the session file is found
    assert (t.format, t.session_id, t.model, t.complete, t.turns) == (
        "claude-session",
        "sess-1",
        "claude-sonnet-4-5",
        True,
        3,
    )
    assert tree(t.subagents) == [("a1", "toolu_task", "general-purpose", [("a2", "toolu_nested", "Bash", [])])]
    assert t.tokens == TokenUsage(fresh_input=16, cache_read=3500, cache_write=2500, output=611)
    a1 = t.subagents[0]
    assert a1.tokens == TokenUsage(fresh_input=6, cache_read=800, cache_write=800, output=42)
    assert a1.prompt == "Find the hotspots in solution.py"
    assert t.duration_s == 60.0
    assert [e.subtype for e in t.events if e.kind == "system"] == ["compaction", "quiet"]
    assert t.events[-1].text == "Not shown as cards: 1 file-history snapshots"  # bookkeeping, counted at the end
    solution = changes_by_path(t)["/work/run/solution.py"]
    assert solution.changes[0].diff.splitlines()[2:] == [
        "@@ -1,4 +1,5 @@",
        " import torch",
        "+import triton",
        " ",
        " def kernel(x):",
        "-    return x * 2",
        "+    return x.mul(2)",
    ]


def test_claude_session_legacy_pairs_by_agent_id_then_prompt_and_marks_rewinds():
    t = load_transcript(FIXTURES / "claude_session_legacy")
    assert tree(t.subagents) == [("b1", "toolu_t1", "Explore", []), ("b2", "toolu_t2", "Explore", [])]
    assert [e.subtype for e in t.events] == ["summary", "", "abandoned branch", "abandoned branch", "", "", "api_error"]
    assert t.tokens == TokenUsage(fresh_input=13, cache_read=0, cache_write=100, output=15)
    assert not t.complete


# --- Codex -------------------------------------------------------------------------------------


def test_codex_rollout_uses_total_token_usage_and_the_tools_diff():
    t = load_transcript(FIXTURES / "codex/rollout-2026-10-02T12-00-00-0199-codex-sess.jsonl")
    assert (t.model, t.effort, t.session_id, t.cwd, t.complete, t.turns) == (
        "gpt-5-codex",
        "high",
        "0199-codex-sess",
        "/work/run",
        True,
        2,
    )
    assert t.tokens == TokenUsage(fresh_input=3000, cache_read=6000, output=400, reasoning=300)
    # event_msg copies of messages are not rendered twice; injected context is a system event.
    assert kinds(t.events) == ["system", "system", "user", "reasoning", "tool", "tool", "assistant"]
    assert t.events[1].subtype == "context"
    badges = [e.tokens for e in t.events if e.tokens]
    assert badges == [TokenUsage(2000, 2000, None, 200, 100), TokenUsage(1000, 4000, None, 200, 200)]
    files = changes_by_path(t)
    assert files["/work/run/solution.py"].changes[0].diff == (
        "--- a/work/run/solution.py\n+++ b/work/run/solution.py\n@@ -3,2 +3,2 @@\n def kernel(x):\n"
        "-    return x * 2\n+    return fast(x)\n"
    )
    assert files["/work/run/solution.py"].changes[0].source == "tool"
    assert files["/work/run/kernels/fast.py"].final_content == "def fast(x):\n    return x.mul(2)\n"


def test_codex_rollout_aborted_with_heredoc_patch():
    t = load_transcript(FIXTURES / "codex/rollout-aborted.jsonl")
    assert t.tokens == TokenUsage(fresh_input=1000, cache_read=500, output=120, reasoning=0)
    assert (t.complete, t.incomplete_reason) == (False, "turn aborted (interrupted)")
    change = changes_by_path(t)["solution.py"].changes[0]
    assert (change.source, change.diff) == (
        "patch",
        "--- a/solution.py\n+++ b/solution.py\n@@ @@\n-    return x * 2\n+    return x + x\n",
    )
    assert [e.is_error for e in t.events if e.kind == "tool"] == [False, True]
    assert t.events[-1].kind == "raw" and "brand_new_event" in t.events[-1].subtype
    assert any(e.subtype == "compaction" for e in t.events)


def test_codex_exec_sums_turn_usage():
    t = load_transcript(FIXTURES / "codex/exec.jsonl")
    assert t.tokens == TokenUsage(fresh_input=1000, cache_read=4000, output=250)
    assert (t.model, t.turns, t.tool_calls, t.complete) == ("", 2, 3, True)
    assert [e.is_error for e in t.events if e.kind == "tool"] == [False, False, True]
    assert {f.path: (f.changes[0].action, f.combined_diff) for f in t.file_changes} == {
        "/work/run/new.py": ("create", ""),
        "/work/run/solution.py": ("edit", ""),
    }
    failed = load_transcript(FIXTURES / "codex/exec_failed.jsonl")
    assert (failed.complete, failed.incomplete_reason) == (False, "turn failed: stream disconnected")


def test_codex_exec_06x_plan_collab_and_questions_are_read_not_raw():
    t = load_transcript(FIXTURES / "codex/exec_v06.jsonl")
    assert kinds(t.events) == ["assistant", "tool", "system", "assistant"]
    plan, collab, question, _ = t.events
    assert (plan.subtype, plan.text) == ("plan", "1. Profile\n2. Fuse")
    assert (collab.tool_name, collab.tool_input["prompt"], collab.is_error) == (
        "collab_tool_call",
        "Benchmark it",
        False,
    )
    assert "0.9 ms" in collab.result and question.text == "Keep fp8?"
    assert t.tokens == TokenUsage(fresh_input=300, cache_read=700, output=90) and t.complete


def test_codex_collab_child_rollout_is_read_under_the_spawn_call():
    t = load_transcript(FIXTURES / "codex_collab/rollout-2026-10-02T13-00-00-parent-thread.jsonl")
    assert tree(t.subagents) == [("child-thread", "call_spawn", "", [])]
    child = t.subagents[0]
    assert child.prompt == "Benchmark solution.py" and kinds(child.events) == ["system", "tool", "assistant"]
    assert child.tokens == TokenUsage(fresh_input=800, cache_read=0, output=50, reasoning=0)
    assert t.tokens == TokenUsage(fresh_input=2800, cache_read=1000, output=250, reasoning=0)
    assert (t.model, t.effort, t.complete) == ("gpt-5.1-codex", "xhigh", True)


# --- opencode, Kimi, Cursor, droid, Gemini --------------------------------------------------------


def test_opencode_sums_steps_and_nests_the_child_session():
    t = load_transcript(FIXTURES / "opencode/run.jsonl")
    assert t.tokens == TokenUsage(fresh_input=1500, cache_read=1500, cache_write=500, output=160, reasoning=20)
    assert t.cost_usd == pytest.approx(0.016)
    assert tree(t.subagents) == [("ses_child", "call_t", "general", [])]
    assert kinds(t.subagents[0].events) == ["assistant", "tool"]
    assert t.subagents[0].tokens.total == 330
    cfg = changes_by_path(t)["/work/run/cfg.py"]
    assert cfg.changes[0].diff.startswith("Index: /work/run/cfg.py\n")
    assert cfg.final_content == "a = 1\nb = 3\n"
    assert (
        cfg.combined_diff == "--- a/work/run/cfg.py\n+++ b/work/run/cfg.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
    )
    assert t.complete and t.events[1].duration_s == pytest.approx(0.25)
    error = load_transcript(FIXTURES / "opencode/error.jsonl")
    assert (error.complete, error.incomplete_reason) == (False, "error: rate limited")


def test_kimi_print():
    t = load_transcript(FIXTURES / "kimi/print.jsonl")
    assert t.tokens == TokenUsage() and t.complete
    assert kinds(t.events) == ["reasoning", "assistant", "tool", "tool", "tool", "assistant"]
    assert tree(t.subagents) == [("tc_3", "tc_3", "coder", [])] and t.subagents[0].prompt == "Run the tests"
    assert changes_by_path(t)["/work/run/solution.py"].changes[0].diff == (
        "--- a/work/run/solution.py\n+++ b/work/run/solution.py\n@@ -1 +1 @@\n-x * 2\n+x.mul(2)\n"
    )


def test_kimi_wire_parallel_subagents_and_streamed_text():
    t = load_transcript(FIXTURES / "kimi/wire.jsonl")
    assert t.tokens == TokenUsage(fresh_input=950, cache_read=1000, cache_write=200, output=105)
    assert tree(t.subagents) == [("tc_a", "tc_a", "coder", []), ("tc_b", "tc_b", "coder", [])]
    assert [e.text for e in t.events if e.kind in ("reasoning", "assistant")] == [
        "Plan: delegate.",
        "Delegating two checks.",
        "Both checks pass.",
    ]
    assert t.subagents[0].events[0].result == "0.9 ms" and t.subagents[1].events[0].text == "lint clean"
    assert changes_by_path(t)["out.txt"].final_content == "fast\n"
    assert t.complete
    loop = load_transcript(FIXTURES / "kimi/wire_loop_events.jsonl")
    assert loop.tokens == TokenUsage(fresh_input=10, cache_read=20, cache_write=0, output=4)
    assert [e.is_error for e in loop.events if e.kind == "tool"] == [True] and not loop.complete


def test_cursor():
    t = load_transcript(FIXTURES / "cursor/run.jsonl")
    assert t.tokens == TokenUsage(fresh_input=1200, cache_read=5000, cache_write=800, output=340)
    assert (t.model, t.duration_s, t.complete) == ("gpt-5", 8.0, True)
    assert [e.tool_name for e in t.events if e.kind == "tool"] == ["shell", "edit", "task", "write"]
    assert [e.text for e in t.events if e.kind == "reasoning"] == ["Let me look."]
    assert tree(t.subagents) == [("cc3", "cc3", "reviewer", [])]
    # The failed write changed nothing; the edit's own diffString is used.
    assert list(changes_by_path(t)) == ["/work/run/solution.py"]
    assert changes_by_path(t)["/work/run/solution.py"].changes[0].diff == (
        "--- a/work/run/solution.py\n+++ b/work/run/solution.py\n@@ -4 +4 @@\n-    return x * 2\n+    return x.mul(2)\n"
    )


def test_droid_reads_tokens_from_the_settings_sidecar(tmp_path):
    t = load_transcript(FIXTURES / "droid_run")
    assert t.tokens == TokenUsage(fresh_input=2100, cache_read=12000, cache_write=900, output=430, reasoning=150)
    assert (t.model, t.effort, t.turns, t.duration_s, t.complete) == ("claude-sonnet-4-5", "high", 3, 6.1, True)
    assert tree(t.subagents) == [("d3", "d3", "tester", [])]
    assert changes_by_path(t)["/work/run/t.py"].final_content == "assert True\n"
    alone = tmp_path / "droid.jsonl"
    shutil.copy(FIXTURES / "droid_run/droid-1.jsonl", alone)
    bare = load_transcript(alone)
    assert bare.tokens == TokenUsage() and bare.warnings == ("no settings.json sidecar: token usage not recorded",)
    assert bare.tokens.total is None and not bare.tokens.recorded


@pytest.mark.parametrize("name", ["session-2026-10-03.json", "session-2026-10-03.jsonl"])
def test_gemini_session_json_and_jsonl(name):
    t = load_transcript(FIXTURES / "gemini" / name)
    assert t.tokens == TokenUsage(fresh_input=3010, cache_read=8000, output=140, reasoning=50)
    assert (t.model, t.turns, t.complete) == ("gemini-2.5-pro", 2, True)
    solution = changes_by_path(t)["/work/run/solution.py"]
    assert solution.changes[0].source == "tool" and solution.final_content == KERNEL_NEW
    assert "+    return x.mul(2)\n" in solution.changes[0].diff
    # JSONL: g1 written again in full replaced its pending form; `$set` metadata lines are no events
    assert not [e for e in t.events if e.kind == "raw"]
    assert [e.is_error for e in t.events if e.kind == "tool"] == [False, True]
    assert t.events[[e.kind for e in t.events].index("tool")].result.startswith("Successfully modified")


def test_gemini_stream():
    t = load_transcript(FIXTURES / "gemini/stream.jsonl")
    # total_tokens 4300 == input_tokens 4000 + output_tokens 300: no thoughts
    assert t.tokens == TokenUsage(fresh_input=1500, cache_read=2500, output=300, reasoning=0)
    assert [e.text for e in t.events if e.kind == "assistant"] == ["I will write it.", "Done."]
    assert (t.duration_s, t.complete, t.model) == (3.5, True, "gemini-2.5-flash")
    assert changes_by_path(t)["/work/run/k.py"].final_content == "K = 1\n"


def test_gemini_session_jsonl_rewind_and_checkpoint():
    """gemini-cli 0.39+ records (chatRecordingService.ts at 5411f11, 0.56)."""
    t = load_transcript(FIXTURES / "gemini/session-v056.jsonl")
    assert t.tokens == TokenUsage(fresh_input=4010, cache_read=14000, output=150, reasoning=55)
    assert [(e.kind, e.text, e.subtype) for e in t.events if e.kind in ("user", "assistant")] == [
        ("user", "Make every 1 a 2", ""),
        ("user", "Undo that", "abandoned branch"),
        ("assistant", "Reverting.", "abandoned branch"),
        ("user", "Now say done", ""),
        ("assistant", "Done.", ""),
    ]
    # the checkpoint's masked copy of g1 (a functionCall part) and its tool-response turn add nothing
    assert not [e for e in t.events if e.kind == "raw"] and t.complete
    (call,) = [e for e in t.events if e.kind == "tool"]
    assert call.result == "Replaced 2." and not call.is_error
    (change,) = changes_by_path(t)["/work/run/k.py"].changes
    assert change.replace_all and change.replacements == (("1", "2"),)


def test_gemini_stream_per_model_stats_v056():
    """stream-json `result.stats` (output/types.ts, stream-json-formatter.ts at 5411f11): `input` is the
    fresh part of `input_tokens`; thoughts are only inside `total_tokens`."""
    t = load_transcript(FIXTURES / "gemini/stream_v056.jsonl")
    assert t.tokens == TokenUsage(fresh_input=2300, cache_read=2500, output=320, reasoning=120)
    assert t.tokens.total == 5240 and t.complete and t.duration_s == 3.0
    assert [e.kind for e in t.events] == ["system", "user", "assistant", "system", "system"]


def test_gemini_stream_before_0_22_records_no_cache_reads(tmp_path):
    """Before 0.22 the stats had no `cached`/`input`: cache reads are not recorded (None), not 0."""
    path = tmp_path / "stream.jsonl"
    lines = [
        {"type": "init", "timestamp": "2025-11-01T00:00:00Z", "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": "message", "timestamp": "2025-11-01T00:00:01Z", "role": "assistant", "content": "ok", "delta": True},
        {
            "type": "result",
            "timestamp": "2025-11-01T00:00:02Z",
            "status": "success",
            "stats": {"total_tokens": 130, "input_tokens": 100, "output_tokens": 20, "duration_ms": 2000},
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    t = load_transcript(path, format="gemini-stream")
    assert t.tokens == TokenUsage(fresh_input=100, output=20, reasoning=10)
    assert t.tokens.cache_read is None


def test_opencode_v1_text_deltas_total_and_done():
    """run.ts 1.x: one text part in several lines, `tokens.total`, the `done` line."""
    t = load_transcript(FIXTURES / "opencode/run_v1.jsonl")
    assert t.tokens == TokenUsage(fresh_input=950, cache_read=1100, cache_write=0, output=65, reasoning=35)
    assert [e.text for e in t.events if e.kind == "assistant"] == ["Editing the file.", "Done."]
    assert t.events[-1].subtype == "done" and "bash" in t.events[-1].text
    assert not [e for e in t.events if e.kind == "raw"] and t.complete
    assert t.cost_usd == pytest.approx(0.004)
    (change,) = changes_by_path(t)["/work/run/k.py"].changes
    assert change.source == "rebuilt" and change.replacements == (("n = 1", "n = 2"),)


def test_a_run_directory_finds_its_transcript():
    t = load_transcript(FIXTURES / "run_dir")
    assert t.format == "claude-stream" and t.path.endswith("transcript.jsonl")


def test_unknown_file_gives_an_error_event_naming_the_file(tmp_path):
    junk = tmp_path / "notes.jsonl"
    junk.write_text('{"hello": 1}\n')
    t = load_transcript(junk)
    assert not t.complete and t.events[0].kind == "error" and str(junk) in t.events[0].text
