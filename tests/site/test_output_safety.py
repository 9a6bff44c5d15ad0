"""The build's output folder is safe to point anywhere: it refuses folders it must not own (exit 2), removes
only files its own previous build wrote, and writes pages another user can read (0644 files, 0755 folders)."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.site.fixtures import REPO


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "board", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env=env)


def _small_results(tmp_path: Path) -> Path:
    from tests.site.fixtures import make_result, write

    results = tmp_path / "results"
    write(results / "h100_sxm" / "run-x1.json", make_result("run-x1"))
    write(results / "h100_sxm" / "run-x2.json", make_result("run-x2", scale=0.9))
    return results


def _build(results: Path, out: Path):
    from board import BuildConfig, build

    return build(BuildConfig(results=str(results), out=str(out), transcripts=False), log=lambda line: None)


def test_root_and_home_are_refused_with_exit_2(tmp_path):
    results = _small_results(tmp_path)
    root = _cli(f"results={results}", "out=/")
    assert root.returncode == 2 and "filesystem root" in root.stderr and "Traceback" not in root.stderr
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    refused = _cli(f"results={results}", f"out={home}", env=dict(os.environ, HOME=str(home)))
    assert refused.returncode == 2 and "home folder" in refused.stderr
    assert sorted(p.name for p in home.iterdir()) == [".config"]  # nothing written


def test_a_non_empty_folder_without_a_manifest_is_refused_and_left_alone(tmp_path):
    results = _small_results(tmp_path)
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "thesis.txt").write_text("years of work")
    (folder / "notes.md").write_text("notes")
    done = _cli(f"results={results}", f"out={folder}")
    assert done.returncode == 2 and "not empty" in done.stderr and "thesis.txt" in done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["notes.md", "thesis.txt"]
    assert (folder / "thesis.txt").read_text() == "years of work"


def test_a_folder_holding_only_a_readme_is_built_into_and_the_readme_kept(tmp_path):
    results = _small_results(tmp_path)
    out = tmp_path / "site"
    out.mkdir()
    (out / "README.md").write_text("placeholder")
    _build(results, out)
    assert (out / "index.html").is_file() and (out / "README.md").read_text() == "placeholder"


def test_a_rebuild_removes_only_what_the_previous_build_wrote(tmp_path):
    results = _small_results(tmp_path)
    out = tmp_path / "site"
    _build(results, out)
    manifest = json.loads((out / ".build-manifest.json").read_text())
    assert "run/run-x2.html" in manifest["files"] and "index.html" in manifest["files"]
    (out / "thesis.txt").write_text("mine")
    (out / "run" / "my-notes.html").write_text("mine too")
    (out / "outside.txt").write_text("not to be reached through the manifest")
    manifest["files"].append("../outside-of-site.txt")  # a manifest entry that escapes the folder: ignored
    (tmp_path / "outside-of-site.txt").write_text("keep")
    (out / ".build-manifest.json").write_text(json.dumps(manifest))
    (results / "h100_sxm" / "run-x2.json").unlink()
    _build(results, out)
    assert not (out / "run" / "run-x2.html").exists()  # the gone run's page: written by the last build, removed
    assert (out / "thesis.txt").read_text() == "mine" and (out / "run" / "my-notes.html").read_text() == "mine too"
    assert (tmp_path / "outside-of-site.txt").read_text() == "keep"


def test_every_written_file_is_world_readable_and_folders_are_0755(tmp_path):
    results = _small_results(tmp_path)
    out = tmp_path / "site"
    previous = os.umask(0o022)
    try:
        _build(results, out)
    finally:
        os.umask(previous)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) > 10
    modes = {str(p.relative_to(out)): stat.S_IMODE(p.stat().st_mode) for p in files}
    assert {rel: mode for rel, mode in modes.items() if mode != 0o644} == {}
    folders = [p for p in out.rglob("*") if p.is_dir()] + [out]
    assert {str(p): oct(stat.S_IMODE(p.stat().st_mode)) for p in folders if stat.S_IMODE(p.stat().st_mode) != 0o755} == {}


def test_the_repository_and_the_results_folder_are_refused(tmp_path):
    from board import BuildConfig, build
    from board.output import UnsafeOutput

    with pytest.raises(UnsafeOutput, match="source folder"):
        build(BuildConfig(results=str(REPO / "results"), out=str(REPO)), log=lambda line: None)
    results = _small_results(tmp_path)
    with pytest.raises(UnsafeOutput):
        build(BuildConfig(results=str(results), out=str(results)), log=lambda line: None)
