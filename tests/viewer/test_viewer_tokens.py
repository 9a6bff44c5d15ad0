"""Token counts carry whether they were recorded: None is "not recorded", never 0, in the model,
the summary and the page; Kimi wire protocol 1.4 usage counts once per step; a protocol version
the viewer does not know is named on the page."""

from pathlib import Path

from viewer import TokenUsage, load_transcript, render_transcript_html
from viewer.model import sum_usage

FIXTURES = Path(__file__).parent / "fixtures"
KIMI_CODE = FIXTURES / "kimi_code/sessions/wd_run/sess-k/agents/main/wire.jsonl"


def card(html: str, name: str) -> str:
    start = html.index(f'data-card="{name}"')
    value = html.index('<div class="v">', start) + len('<div class="v">')
    return html[value : html.index("</div>", value)]


def test_unrecorded_counts_stay_none_through_sums():
    nothing = TokenUsage()
    assert nothing.total is None and not nothing.recorded and nothing.as_dict()["total"] is None
    openai = TokenUsage(fresh_input=10, cache_read=5, output=3)  # no cache writes, no reasoning
    assert (openai + openai).cache_write is None and (openai + openai).total == 36
    assert sum_usage([]) == nothing
    assert sum_usage([nothing, openai]) == openai  # nothing recorded adds nothing, not a zero
    assert TokenUsage(output=0).total == 0 and TokenUsage(output=0).recorded  # a recorded zero stays zero


def test_cursor_stream_without_usage_says_not_recorded():
    t = load_transcript(FIXTURES / "cursor/no_usage.jsonl")
    assert t.tokens == TokenUsage() and t.tokens.total is None
    html = render_transcript_html(t)
    assert card(html, "total tokens") == "not recorded"
    assert card(html, "fresh input tokens") == "not recorded"
    recorded = render_transcript_html(FIXTURES / "cursor/run.jsonl")
    assert card(recorded, "total tokens") == "7,340 (7.3k)"
    assert card(recorded, "reasoning tokens") == "not recorded"  # cursor reports no reasoning apart


def test_droid_without_sidecar_says_not_recorded(tmp_path):
    alone = tmp_path / "droid.jsonl"
    alone.write_bytes((FIXTURES / "droid_run/droid-1.jsonl").read_bytes())
    html = render_transcript_html(alone)
    assert card(html, "total tokens") == "not recorded"
    assert "no settings.json sidecar: token usage not recorded" in html


def test_kimi_code_protocol_1_4_counts_each_step_once():
    t = load_transcript(KIMI_CODE)
    # step.end usage once per step (main two steps and the subagent's one); the usage.record
    # lines (turn and session scope) repeat it and must not count again.
    assert t.tokens == TokenUsage(fresh_input=1650, cache_read=3500, cache_write=3000, output=140)
    assert t.tokens.total == 8290
    assert (t.format, t.format_version, t.model, t.cwd, t.complete) == (
        "kimi-wire",
        "1.4",
        "kimi-k2.7-code",
        "/work/run",
        True,
    )
    assert [e.kind for e in t.events] == ["user", "reasoning", "assistant", "tool", "tool", "assistant", "raw"]
    reasoning, _, edit, agent_call, answer, raw = t.events[1:]
    assert reasoning.text == "Profile first." and answer.text == "Done: 0.9 ms."
    assert reasoning.tokens == TokenUsage(fresh_input=1200, cache_read=0, cache_write=3000, output=80)
    assert (edit.tool_name, edit.result, agent_call.result) == ("StrReplaceFile", "Replaced 1", "0.9 ms")
    assert edit.changes[0].diff.endswith("-x * 2\n+x.mul(2)\n")
    assert "brand.new_record" in raw.text
    (sub,) = t.subagents
    assert (sub.key, sub.parent_tool_id, sub.prompt) == ("agent-0", "tool_2", "Benchmark it")
    assert sub.tokens == TokenUsage(fresh_input=300, cache_read=500, cache_write=0, output=20)
    assert sub.events[1].tool_input == {"command": "python bench.py"} and sub.events[1].result == "0.9 ms"


def test_kimi_code_usage_records_count_when_no_step_recorded_usage():
    t = load_transcript(FIXTURES / "kimi/code_usage_records_only.jsonl")
    # Two turn records summed; the session record (their running total) not added again.
    assert t.tokens == TokenUsage(fresh_input=70, cache_read=30, cache_write=0, output=12)


def test_older_wire_formats_still_read():
    assert load_transcript(FIXTURES / "kimi/wire.jsonl").tokens.total == 2255
    assert load_transcript(FIXTURES / "kimi/wire_loop_events.jsonl").tokens.total == 34


def test_unknown_protocol_version_is_named_and_its_usage_not_counted():
    t = load_transcript(FIXTURES / "kimi/wire_v2.jsonl")
    assert t.format_version == "2.0" and t.tokens == TokenUsage()
    assert [e.text for e in t.events] == ["Hi", "Hello."]  # what is recognisable is still read
    html = render_transcript_html(t)
    assert "kimi wire protocol 2.0: usage not understood" in html
    assert "kimi wire protocol 2.0: not a version this viewer knows" in html
    assert card(html, "total tokens") == "not recorded"
    assert card(html, "harness") == "Kimi CLI (kimi-wire 2.0)"
