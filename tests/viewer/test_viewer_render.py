"""The page as HTML text: self-contained, deterministic, escaped, with every event anchored and
the run directory's artifacts in tabs. (The browser tests check the same pages live.)"""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from viewer import load_transcript, render_transcript_html, write_transcript_page
from viewer.render.script import SCRIPT

FIXTURES = Path(__file__).parent / "fixtures"
ALL = sorted(
    p
    for p in FIXTURES.rglob("*.json*")
    if "subagents" not in p.parts and p.name not in ("settings.json", "result.json") and not p.name.startswith("agent-")
)
ALLOWED_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "main",
    "h1",
    "h3",
    "div",
    "span",
    "nav",
    "button",
    "section",
    "article",
    "header",
    "time",
    "a",
    "pre",
    "p",
    "details",
    "summary",
    "template",
    "input",
    "label",
    "ul",
    "ol",
    "li",
    "strong",
    "em",
    "code",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "script",
    "blockquote",
    "hr",
    "br",
    "h2",
    "h4",
    "h5",
    "h6",
}


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.scripts, self._in_script = [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend((tag, k, v or "") for k, v in attrs)
        self._in_script = tag == "script"

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)
            self._in_script = False


def parse(page):
    tags = Tags()
    tags.feed(page)
    return tags


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_renders_a_self_contained_page(path):
    page = render_transcript_html(path)
    tags = parse(page)
    assert set(tags.tags) <= ALLOWED_TAGS, set(tags.tags) - ALLOWED_TAGS
    assert tags.scripts == [SCRIPT]  # our script only, and inline
    for tag, name, value in tags.attrs:
        assert not name.startswith("on"), (tag, name)
        assert name not in ("src", "srcset", "action", "formaction", "background"), (tag, name)
        if name == "href":
            assert value.startswith("#") or (tag == "a" and value.startswith(("http://", "https://"))), value
    assert "default-src 'none'" in page and "\x1b" not in page


def test_hostile_content_is_inert_text():
    page = render_transcript_html(FIXTURES / "claude_stream/hostile.jsonl")
    tags = parse(page)
    assert tags.tags.count("script") == 1 and "iframe" not in tags.tags and "img" not in tags.tags
    assert "__pwned" not in SCRIPT and page.count("&lt;script&gt;window.__pwned") >= 5
    assert "javascript:" not in " ".join(v for _, n, v in tags.attrs if n == "href")
    assert "[image: tracker &lt;https://evil.example/t.png&gt;]" in page


def test_every_event_has_a_unique_stable_anchor_and_output_is_deterministic():
    path = FIXTURES / "claude_stream/parallel_subagents.jsonl"
    first, second = render_transcript_html(path), render_transcript_html(path)
    assert first == second
    t = load_transcript(path)
    anchors = [e.anchor for e in t.all_events()]
    assert len(anchors) == len(set(anchors))
    ids = re.findall(r'<article class="[^"]*" id="(e\d+)"', first)
    assert sorted(ids) == sorted(anchors)


def test_subagents_render_nested_under_their_spawning_call():
    page = render_transcript_html(FIXTURES / "claude_stream/parallel_subagents.jsonl")
    call_a = page.index('data-agent="toolu_A"')
    nested = page.index('data-agent="toolu_A_nested"')
    call_b = page.index('data-agent="toolu_B"')
    assert call_a < nested < call_b
    assert "2 events · 1 tool calls · 1.2k tokens" in page
    assert "Subagents whose spawning call is not in the transcript" not in page


def test_summary_cards_banner_and_changes_tab():
    page = render_transcript_html(FIXTURES / "claude_stream/max_turns.jsonl")
    assert "Incomplete run.</strong> budget hit: maximum number of turns reached" in page
    page = render_transcript_html(FIXTURES / "claude_stream/edit.jsonl")
    assert "Incomplete run" not in page
    for text in ("claude-opus-4-5", "$0.1234", "1m 05s", "6,300", "2,250", "9,155 (9.2k)", "changes (3 files)"):
        assert text in page
    assert '<section class="file" id="file-2"><h3>/work/run/solution.py</h3>' in page


def test_run_directory_artifacts_become_tabs(tmp_path):
    out = write_transcript_page(FIXTURES / "run_dir", tmp_path / "page.html")
    page = out.read_text()
    for key in ("timeline", "changes", "solution", "result", "log-0"):
        assert f'data-tab="{key}"' in page and f'id="tab-{key}"' in page
    assert "held-out &lt;b&gt;big&lt;/b&gt;" in page and "<td>0.0123</td>" in page
    assert "ceiling.result/1" in page and "score.geomean_fraction" in page


def test_a_broken_result_json_is_shown_as_text(tmp_path):
    (tmp_path / "transcript.jsonl").write_bytes((FIXTURES / "kimi/print.jsonl").read_bytes())
    (tmp_path / "result.json").write_text('{"schema": "ceiling.result/1", "shapes": [')
    page = render_transcript_html(tmp_path)
    assert "result.json is not valid JSON" in page


def test_long_output_is_folded_behind_show_all(tmp_path):
    lines = [json.loads(l) for l in (FIXTURES / "kimi/print.jsonl").read_text().splitlines()]
    lines[1]["content"] = "\n".join(f"line {i} " + "x" * 500 for i in range(300))
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    page = render_transcript_html(path)
    assert 'class="show-all" data-template="t' in page and "show all (300 lines" in page
    preview = page[page.index('<div class="preview">') : page.index('<button type="button" class="show-all"')]
    assert "line 0 " in preview and "line 299" not in preview
