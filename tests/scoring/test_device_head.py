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


def test_unpack_points_a_stale_copy_at_the_packed_commit(tmp_path):
    here, there = tmp_path / "here", tmp_path / "there"
    files = {
        "kernel.py": "print('current')\n",
        ".gitignore": "/.scratch/\n",
        "scripts/device_head.sh": SCRIPT.read_text(),
    }
    repository(here, files)
    repository(there, {"kernel.py": "print('stale')\n"})  # the stale .git, unrelated history even
    for name, text in files.items():  # the tree that travels is the current one
        (there / name).parent.mkdir(parents=True, exist_ok=True)
        (there / name).write_text(text)

    packed = subprocess.run(["bash", "scripts/device_head.sh", "pack"], cwd=here, capture_output=True, text=True)
    assert packed.returncode == 0, packed.stderr
    shutil.copytree(here / ".scratch", there / ".scratch")  # carry [".scratch"]
    unpacked = subprocess.run(["bash", "scripts/device_head.sh", "unpack"], cwd=there, capture_output=True, text=True)
    assert unpacked.returncode == 0, unpacked.stderr
    assert git(there, "rev-parse", "HEAD") == git(here, "rev-parse", "HEAD")
    assert git(there, "status", "--porcelain") == ""  # results written there say dirty=false
    assert "0 path(s) differ" in unpacked.stdout


def test_a_wrong_verb_is_refused_with_the_usage():
    done = subprocess.run(["bash", str(SCRIPT), "push"], capture_output=True, text=True)
    assert done.returncode == 2 and "pack|unpack" in done.stderr
