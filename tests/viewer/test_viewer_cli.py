"""`python -m viewer`: writes a page (with `out=` or `--out`), prints a JSON summary, refuses bad input."""

import json
import subprocess
import sys
from pathlib import Path

from viewer.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def test_out_equals_form_writes_the_page(tmp_path, capsys):
    out = tmp_path / "sub" / "page.html"
    assert main([str(FIXTURES / "run_dir"), f"out={out}"]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>") and 'data-tab="result"' in out.read_text()
    assert "wrote" in capsys.readouterr().out


def test_summary_is_json_with_normalised_tokens(capsys):
    assert main([str(FIXTURES / "codex/exec.jsonl"), "--summary"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"] == {
        "fresh_input": 1000,
        "cache_read": 4000,
        "cache_write": None,  # OpenAI records no cache writes: not recorded, not zero
        "output": 250,
        "reasoning": None,  # codex exec's usage has no reasoning count
        "total": 5250,
    }
    assert data["tokens_recorded"] is True
    assert data["format"] == "codex-exec" and data["files_changed"] == ["/work/run/new.py", "/work/run/solution.py"]


def test_summary_says_not_recorded_as_null_for_a_format_without_usage(capsys):
    assert main([str(FIXTURES / "kimi/print.jsonl"), "--summary"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"] == dict.fromkeys(("fresh_input", "cache_read", "cache_write", "output", "reasoning", "total"))
    assert data["tokens_recorded"] is False


def test_bad_arguments_exit_2(tmp_path, capsys):
    assert main([str(tmp_path / "missing.jsonl")]) == 2
    assert main([str(FIXTURES / "kimi/print.jsonl"), "page.html"]) == 2
    assert "write out=page.html" in capsys.readouterr().err


def test_module_entry_point_runs(tmp_path):
    out = tmp_path / "p.html"
    done = subprocess.run(
        [sys.executable, "-m", "viewer", str(FIXTURES / "gemini/stream.jsonl"), "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 1000
