"""What a reader sees: an edit card is its diff (no escaped strings) under the path as written,
TodoWrite and plan updates are checklists, slash commands are formatted, long tool input is a
200-character preview with 'show all', user text is Markdown with raw HTML shown as text,
bookkeeping is one quiet line, unknown records are one notice, and the timeline opens on the
first user message."""

from __future__ import annotations

import html
import re
from pathlib import Path

import viewer
from viewer.render.style import CSS

SHOWCASE = Path(__file__).parent / "fixtures" / "showcase"


def _page(name: str) -> str:
    return viewer.render_transcript_html(SHOWCASE / name)


def _article(page: str, marker: str) -> str:
    """The <article> holding `marker`."""
    at = page.index(marker)
    start = page.rindex("<article", 0, at)
    return page[start : page.index("</article>", at)]


def test_an_edit_card_is_the_diff_only_under_the_path_as_written():
    page = _page("claude-2x-session.jsonl")
    card = _article(page, "tool-name\">Edit<")
    assert "old_string" not in card and "new_string" not in card and "\\n" not in card
    assert '<span class="path">/Users/dev/Work/run/solution.py</span>' in card
    assert 'class="hl diff"' in card and "torch" in card
    change_head_rule = re.search(r"\.change-head \{[^}]*\}", CSS).group(0)
    assert "uppercase" not in change_head_rule


def test_todowrite_is_a_checklist_not_json():
    card = _article(_page("claude-2x-session.jsonl"), "tool-name\">TodoWrite<")
    assert '"todos"' not in card and "1 of 3 done" in card
    assert re.search(r'class="todo-completed".*Profile the kernel', card)
    assert re.search(r'class="todo-in_progress".*Fuse the epilogue', card)


def test_a_codex_plan_update_is_a_checklist():
    card = _article(_page("codex-0104-rollout.jsonl"), "Vectorise the loads</li>")
    assert "1 of 3 done" in card and "Read the kernel" in card


def test_command_messages_are_formatted_not_xml():
    page = _page("claude-2x-session.jsonl")
    assert "&lt;command-name&gt;" not in page and "&lt;local-command-stdout&gt;" not in page
    assert '<div class="command"><code>/clear</code></div>' in page
    assert "(stdout: no output)" in page


def test_long_tool_input_is_a_200_character_preview_with_show_all():
    card = _article(_page("claude-2x-session.jsonl"), "tool-name\">Bash<")
    preview = html.unescape(re.search(r'<div class="preview"><pre>(.*?)</pre></div>', card, re.S).group(1))
    assert len(preview) == 200 + len(" …") and preview.endswith(" …")
    assert 'class="show-all"' in card and "print(&#x27;shape 12&#x27;, 6144)" in card  # the rest in its template


def test_user_text_is_markdown_with_raw_html_shown_as_text():
    card = _article(_page("claude-2x-session.jsonl"), "keep the API")
    assert "<strong>faster</strong>" in card and "<ol>" in card and "<code>solution.py</code>" in card
    assert "<b>" not in card and "&lt;b&gt;not bold&lt;/b&gt;" in card


def test_bookkeeping_is_one_quiet_line_and_the_page_opens_on_the_first_user_message():
    page = _page("kimi-code-14-wire.jsonl")
    assert page.count('class="ev ev-system quiet"') == 1
    assert 'class="raw-note"' not in page  # no record shown as a raw block
    timeline = page[page.index('<div id="timeline"') :]
    first_article = timeline[timeline.index("<article") :][:200]
    assert 'data-kind="user"' in first_article


def test_setup_events_before_the_first_user_message_are_folded():
    page = _page("codex-0104-rollout.jsonl")
    timeline = page[page.index('<div id="timeline"') :]
    assert timeline.index('<details class="preamble">') < timeline.index('data-kind="user"')
    assert "1 setup event before the first user message (session)" in timeline


def test_unknown_records_are_counted_in_one_notice_and_kept_inside_it(tmp_path):
    lines = (SHOWCASE / "kimi-code-14-wire.jsonl").read_text().splitlines()
    extra = ['{"type": "brand.new_record", "time": 1790000000200}'] * 3 + [
        '{"type": "other.thing", "time": 1790000000300}'
    ]
    path = tmp_path / "wire.jsonl"
    path.write_text("\n".join(lines + extra) + "\n")
    page = viewer.render_transcript_html(path)
    assert page.count('<details class="unknown-notice') == 1
    assert "4 records this viewer does not know" in page
    assert page.count("brand.new_record") >= 3  # each record is still there, inside the notice
    assert '<a href="#unknown-records">' in page


def test_the_page_states_a_cost_estimate_for_claude_sessions_and_the_version_warning_for_codex():
    claude = _page("claude-2x-session.jsonl")
    assert re.search(
        r'data-card="cost"><div class="k">cost</div><div class="v">\$0\.\d{4} estimate \(claude-sonnet-4 prices of 2026-11-27\)',
        claude,
    )
    codex = _page("codex-0104-rollout.jsonl")
    assert "Codex CLI 0.104.0: outside the versions this viewer was checked against" in codex
