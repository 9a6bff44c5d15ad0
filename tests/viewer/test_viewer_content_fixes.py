"""Each content fix of issue 35 against a fixture shaped like the real file
(tests/viewer/make_content_fixtures.py, make_showcase_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import viewer

CONTENT = Path(__file__).parent / "fixtures" / "content"
SHOWCASE = Path(__file__).parent / "fixtures" / "showcase"


def _tools(transcript):
    return [e for e in transcript.all_events() if e.kind == "tool"]


def test_completed_codex_web_searches_are_answered_not_no_result():
    t = viewer.load_transcript(SHOWCASE / "codex-0104-rollout.jsonl")
    search = next(e for e in _tools(t) if e.tool_name == "web_search")
    assert search.result == "search completed: CUDA float4 vectorized load alignment"
    assert not search.is_error and search.duration_s is None  # one record: no duration to show
    assert "no result" not in viewer.render_transcript_html(t)


def test_codex_tool_durations_come_from_the_recorded_duration_seconds():
    t = viewer.load_transcript(CONTENT / "codex-040-durations.jsonl")
    assert [e.duration_s for e in _tools(t)] == [1.25, 0.5, 3.0]  # every timestamp is the same second


def test_a_claude_stream_of_two_runs_sums_both_runs_tokens_cost_turns_and_time():
    t = viewer.load_transcript(CONTENT / "claude-stream-two-runs.jsonl")
    assert (t.tokens.fresh_input, t.tokens.output) == (4000, 400)
    assert abs(t.cost_usd - 0.75) < 1e-9
    assert (t.turns, t.duration_s) == (5, 10.0)


def test_droid_stream_results_pair_by_tool_call_id_and_the_final_text_is_kept():
    t = viewer.load_transcript(CONTENT / "droid-stream-toolcallid.jsonl")
    results = {e.tool_input["command"]: (e.result, e.is_error) for e in _tools(t)}
    assert results == {"make test": ("12 passed", False), "make lint": ("lint: 2 errors", True)}
    assert not [e for e in t.events if e.tool_name == "(unknown call)"]
    assert any(e.kind == "assistant" and e.text == "Tests pass; lint reports 2 errors." for e in t.events)


def test_cursor_agent_transcripts_are_their_own_format_and_keep_every_assistant_turn():
    t = viewer.load_transcript(CONTENT / "cursor-agent-transcript.jsonl")
    assert t.format == "cursor-transcript" and t.harness == "Cursor"
    assert [e.kind for e in t.events] == ["user", "assistant", "tool", "assistant"]
    assert t.events[0].text == "Speed up the loop"  # <user_query> tags dropped
    assert t.events[2].result == "for i in range(n): ..." and t.complete


def test_the_kimi_print_stream_is_still_kimi_print():
    assert viewer.load_transcript(Path(__file__).parent / "fixtures/kimi/print.jsonl").format == "kimi-print"


def test_a_droid_session_store_file_is_read_with_its_settings_sidecar():
    folder = CONTENT / "droid-session"
    t = viewer.load_transcript(next(folder.glob("*.jsonl")))
    assert t.format == "droid-session" and t.session_id == "3b9e2c1a-droid" and t.cwd == "/work/run"
    assert [f.path for f in t.file_changes] == ["/work/run/Makefile"]
    assert (t.tokens.fresh_input, t.tokens.cache_read, t.tokens.reasoning) == (5000, 20000, 50)
    assert any(e.subtype == "plan" for e in t.events) and t.complete


def test_a_json_array_of_claude_records_is_read_like_the_session_file():
    array = viewer.load_transcript(CONTENT / "claude-records-array.json")
    lines = viewer.load_transcript(Path(__file__).parent / "fixtures/completeness/claude-session-clean.jsonl")
    assert array.format == "claude-session" and array.path.endswith("claude-records-array.json")
    assert [(e.kind, e.text) for e in array.events] == [(e.kind, e.text) for e in lines.events]
    assert array.tokens == lines.tokens and array.complete


def test_a_kimi_write_with_path_and_content_is_a_file_change():
    t = viewer.load_transcript(SHOWCASE / "kimi-code-14-wire.jsonl")
    (change,) = t.file_changes
    assert change.path == "/work/run/gemm.py" and change.final_content == "import triton\n\nBLOCK = 128\n"


def test_claude_and_codex_versions_are_recorded_and_out_of_range_ones_flagged():
    claude = viewer.load_transcript(SHOWCASE / "claude-2x-session.jsonl")
    assert claude.format_version == "2.0.77" and not claude.warnings
    codex = viewer.load_transcript(SHOWCASE / "codex-0104-rollout.jsonl")
    assert codex.format_version == "0.104.0"
    assert any("0.104.0: outside the versions this viewer was checked against (0.40-0.69)" in w for w in codex.warnings)
    assert not viewer.load_transcript(CONTENT / "codex-040-durations.jsonl").warnings


def test_codex_0104_event_kinds_are_cards_or_counted_never_raw():
    t = viewer.load_transcript(SHOWCASE / "codex-0104-rollout.jsonl")
    assert not [e for e in t.events if e.kind == "raw"]
    subtypes = {e.subtype for e in t.events}
    assert {"context compacted", "plan", "quiet"} <= subtypes
    quiet = next(e for e in t.events if e.subtype == "quiet")
    assert "1 git snapshots (undo points)" in quiet.text


def test_kimi_code_bookkeeping_is_one_quiet_line_and_plan_mode_and_compaction_are_cards():
    t = viewer.load_transcript(SHOWCASE / "kimi-code-14-wire.jsonl")
    assert not [e for e in t.events if e.kind == "raw"]
    (quiet,) = [e for e in t.events if e.subtype == "quiet"]
    assert quiet.text == (
        "Not shown as cards: 2 LLM requests, 1 compaction starts, 1 permission approvals, 1 tool-set updates"
    )
    texts = [e.text for e in t.events if e.kind == "system"]
    assert "Plan mode: enter" in texts and "Plan mode: exit" in texts
    assert any(text.startswith("Context compacted") for text in texts)


def test_the_generators_match_the_committed_fixtures(tmp_path, monkeypatch):
    import tests.viewer.make_content_fixtures as content
    import tests.viewer.make_showcase_fixtures as showcase

    for module, committed in ((content, CONTENT), (showcase, SHOWCASE)):
        monkeypatch.setattr(module, "HERE", tmp_path / committed.name)
        module.main()
        for written in (tmp_path / committed.name).rglob("*"):
            if written.is_file():
                relative = written.relative_to(tmp_path / committed.name)
                assert written.read_text() == (committed / relative).read_text(), relative


def test_kimi_wire_approvals_are_counted_on_the_quiet_line(tmp_path):
    lines = (Path(__file__).parent / "fixtures/kimi/wire.jsonl").read_text().splitlines()
    approvals = [
        '{"timestamp": 1759500001.5, "message": {"type": "ApprovalRequest", "payload": {"id": "a1", "action": "run"}}}',
        '{"timestamp": 1759500001.6, "message": {"type": "ApprovalResponse", "payload": {"request_id": "a1", "response": "approve"}}}',
    ]
    path = tmp_path / "wire.jsonl"
    path.write_text("\n".join(lines[:3] + approvals + lines[3:]) + "\n")
    t = viewer.load_transcript(path)
    assert not [e for e in t.events if e.kind == "raw"]
    assert [e.text for e in t.events if e.subtype == "quiet"] == [
        "Not shown as cards: 1 permission approvals, 1 permission requests"
    ]
