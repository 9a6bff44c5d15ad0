"""The viewer's command line follows the project's conventions (board/cli.py, scoring/options.py):
`help` anywhere, exit 2 and one line for a usage error, exit 1 and one line (no page) for input that
is not a transcript, `-` for stdin, several paths giving an index, and quiet on a closed pipe."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from viewer.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


def _run(*args: str, stdin: bytes | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "viewer", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=120,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.parametrize("argv", [["help"], ["x.jsonl", "help"], ["--help"], ["-h", "out=a.html"]])
def test_help_anywhere_lists_every_key_with_its_default(argv, capsys):
    assert main(argv) == 0
    text = capsys.readouterr().out
    for key in ("out", "format", "run_dir", "title", "summary"):
        assert f"\n  {key} " in text
    assert "[false]" in text  # summary's default


def _one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize(
    "argv, says",
    [
        (["missing.jsonl"], "no such file"),
        ([], "no transcript given"),
        ([str(FIXTURES / "kimi/print.jsonl"), "formt=kimi-print"], "did you mean 'format'"),
        ([str(FIXTURES / "kimi/print.jsonl"), "format=nope"], "choose one of"),
        ([str(FIXTURES / "kimi/print.jsonl"), "--out"], "needs a value"),
    ],
)
def test_usage_errors_exit_2_with_one_line(argv, says, capsys):
    assert main(argv) == 2
    assert says in _one_error_line(capsys)


def test_an_empty_folder_is_a_usage_error(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    assert "no transcript in this folder" in _one_error_line(capsys)


@pytest.mark.parametrize(
    "name, content",
    [
        ("empty.jsonl", b""),
        ("blob.bin", bytes(range(256)) * 4),
        ("list.json", b"[1, 2, 3]\n"),
        ("notes.txt", b"hello\n"),
    ],
)
def test_input_that_is_not_a_transcript_exits_1_and_writes_no_page(tmp_path, capsys, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    assert main([str(path)]) == 1
    assert "not a transcript" in _one_error_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_the_format_hint_in_an_error_is_accepted_by_the_parser(tmp_path, capsys):
    page = tmp_path / "p.html"
    assert main([str(FIXTURES / "kimi/print.jsonl"), "format=kimi-print", f"out={page}"]) == 0
    assert page.exists()


def test_stdin_dash_reads_the_transcript(tmp_path):
    done = _run("-", "--summary", stdin=(FIXTURES / "codex/exec.jsonl").read_bytes(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["format"] == "codex-exec"
    done = _run("-", stdin=(FIXTURES / "gemini/stream.jsonl").read_bytes(), cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "transcript.html").stat().st_size > 1000


def test_several_paths_give_an_index_linking_every_page(tmp_path, capsys):
    index = tmp_path / "runs.html"
    paths = [FIXTURES / "codex/exec.jsonl", FIXTURES / "kimi/print.jsonl", FIXTURES / "gemini/stream.jsonl"]
    assert main([*map(str, paths), f"out={index}"]) == 0
    html = index.read_text()
    pages = sorted((tmp_path / "runs_pages").iterdir())
    assert len(pages) == 3
    for page in pages:
        assert f'href="runs_pages/{page.name}"' in html
        assert page.read_text().startswith("<!DOCTYPE html>")


def test_a_folder_of_sessions_renders_every_one_not_only_the_biggest(tmp_path, capsys):
    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        (tmp_path / name).write_bytes((FIXTURES / "completeness/codex-exec-clean.jsonl").read_bytes())
    assert main([str(tmp_path)]) == 0
    assert len(list((tmp_path / "index_pages").iterdir())) == 3
    assert (tmp_path / "index.html").read_text().count("<tr><td><a href=") == 3


def test_summary_of_several_paths_is_a_json_list(capsys):
    assert main([str(FIXTURES / "codex/exec.jsonl"), str(FIXTURES / "kimi/print.jsonl"), "summary=true"]) == 0
    assert [s["format"] for s in json.loads(capsys.readouterr().out)] == ["codex-exec", "kimi-print"]


def test_a_closed_pipe_ends_quietly():
    args = [str(FIXTURES / "completeness"), "--summary"]
    with subprocess.Popen(
        [sys.executable, "-m", "viewer", *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        process.stdout.readline()
        process.stdout.close()  # what `| head -1` does
        stderr = process.stderr.read().decode()
        process.wait(timeout=60)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
