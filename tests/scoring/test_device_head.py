"""scripts/device_head.sh: a copy of the tree with a stale .git (what the device tool makes) is pointed at
the commit it came from, so results written there name that commit."""

import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "device_head.sh"


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", *args],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def repository(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir()
    git(folder, "init", "-q")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "a commit")


def _stale_copy(tmp_path, how: str = "") -> tuple[Path, Path, dict]:
    """`here` (the repository, HEAD packed) and `there` (its tree over an unrelated stale .git, .scratch carried)."""
    here, there = tmp_path / "here", tmp_path / "there"
    files = {
        "kernel.py": "print('current')\n",
        ".gitignore": "/.scratch/\n",
        "scripts/device_head.sh": SCRIPT.read_text(),
    }
    repository(here, files)
    repository(there, {"kernel.py": "print('stale')\n"})
    for name, text in files.items():
        (there / name).parent.mkdir(parents=True, exist_ok=True)
        (there / name).write_text(text)
    packed = subprocess.run(
        ["bash", "scripts/device_head.sh", "pack", *how.split()], cwd=here, capture_output=True, text=True
    )
    assert packed.returncode == 0, packed.stderr
    shutil.copytree(here / ".scratch", there / ".scratch")
    return here, there, files


def test_the_commit_object_alone_names_the_commit_without_its_history(tmp_path):
    here, there, _ = _stale_copy(tmp_path)
    assert sorted(p.name for p in (here / ".scratch").iterdir()) == ["head.commit"]  # ~1 KB, no bundle
    assert (here / ".scratch" / "head.commit").stat().st_size < 4096
    unpacked = subprocess.run(["bash", "scripts/device_head.sh", "unpack"], cwd=there, capture_output=True, text=True)
    assert unpacked.returncode == 0, unpacked.stderr
    assert git(there, "rev-parse", "HEAD") == git(here, "rev-parse", "HEAD")
    assert git(there, "status", "--porcelain") == ""  # results written there say dirty=false
    assert "0 path(s) differ" in unpacked.stdout


def test_a_copied_tree_that_is_not_the_commits_is_refused_and_head_left_alone(tmp_path):
    here, there, _ = _stale_copy(tmp_path)
    stale_head = git(there, "rev-parse", "HEAD")
    (there / "kernel.py").write_text("print('edited after the commit')\n")
    unpacked = subprocess.run(["bash", "scripts/device_head.sh", "unpack"], cwd=there, capture_output=True, text=True)
    assert unpacked.returncode == 3 and "not HEAD's" in unpacked.stderr
    assert git(there, "rev-parse", "HEAD") == stale_head
    assert git(there, "diff", "--cached", "--name-only") == ""  # nothing left staged


def test_a_bundle_still_carries_the_history(tmp_path):
    here, there, _ = _stale_copy(tmp_path, "bundle")
    assert (here / ".scratch" / "head.bundle").is_file()
    unpacked = subprocess.run(["bash", "scripts/device_head.sh", "unpack"], cwd=there, capture_output=True, text=True)
    assert unpacked.returncode == 0, unpacked.stderr
    assert git(there, "log", "--format=%s") == "a commit"


def test_a_wrong_verb_is_refused_with_the_usage():
    done = subprocess.run(["bash", str(SCRIPT), "push"], capture_output=True, text=True)
    assert done.returncode == 2 and "pack [bundle] | unpack" in done.stderr


def test_results_written_by_earlier_runs_do_not_make_a_checkout_dirty(tmp_path, monkeypatch):
    """scoring.run's git_state: new files under results/ are what a deck's earlier runs wrote; a change to a
    committed result, or any other new file, is a modified checkout."""
    import scoring.run as run

    repository(tmp_path / "repo", {"scoring.py": "x = 1\n", "results/h100/old.json": "{}\n"})
    monkeypatch.setattr(run, "REPO_ROOT", tmp_path / "repo")
    assert run.git_state()["dirty"] is False
    (tmp_path / "repo" / "results" / "h100" / "new.json").write_text("{}\n")
    assert run.git_state()["dirty"] is False
    (tmp_path / "repo" / "results" / "h100" / "old.json").write_text('{"edited": true}\n')
    assert run.git_state()["dirty"] is True
    git(tmp_path / "repo", "checkout", "--", "results/h100/old.json")
    (tmp_path / "repo" / "helper.py").write_text("y = 2\n")
    assert run.git_state()["dirty"] is True
