"""Completeness is judged the way each CLI ends a session: a clean run of every format reads as
complete, and the same file cut off mid-run reads as incomplete with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

import viewer
from tests.viewer.make_completeness_fixtures import SESSIONS

FIXTURES = Path(__file__).parent / "fixtures" / "completeness"


@pytest.mark.parametrize("fmt", sorted(SESSIONS))
def test_a_clean_run_is_complete(fmt):
    transcript = viewer.load_transcript(FIXTURES / f"{fmt}-clean.jsonl")
    assert transcript.format == fmt
    assert transcript.complete, transcript.incomplete_reason


@pytest.mark.parametrize("fmt", sorted(SESSIONS))
def test_a_cut_off_run_is_incomplete_and_says_why(fmt):
    transcript = viewer.load_transcript(FIXTURES / f"{fmt}-cut.jsonl")
    assert transcript.format == fmt
    assert not transcript.complete
    assert transcript.incomplete_reason


def test_claude_code_2x_null_stop_reason_does_not_raise_the_incomplete_banner():
    path = FIXTURES / "claude-session-clean.jsonl"
    assert '"stop_reason": null' in path.read_text()
    page = viewer.render_transcript_html(path)
    assert "Incomplete run" not in page


def test_a_claude_response_stopped_by_max_tokens_is_incomplete(tmp_path):
    text = (FIXTURES / "claude-session-clean.jsonl").read_text().splitlines()
    text[3] = text[3].replace('"stop_reason": null', '"stop_reason": "max_tokens"')
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(text[:4]) + "\n")
    transcript = viewer.load_transcript(path)
    assert not transcript.complete
    assert "max_tokens" in transcript.incomplete_reason


def test_the_committed_fixtures_match_their_generator(tmp_path, monkeypatch):
    import tests.viewer.make_completeness_fixtures as make

    monkeypatch.setattr(make, "HERE", tmp_path)
    make.main()
    for written in tmp_path.iterdir():
        assert written.read_text() == (FIXTURES / written.name).read_text(), written.name
