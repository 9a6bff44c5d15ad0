"""README.md's map of folders ("What is here") names every top-level folder the repository tracks, and no other."""

import re
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def tracked_top_level_folders() -> set[str]:
    """Top-level folders holding tracked files (git ls-files); hidden ones (.ci) are named in a row's text."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout: which folders are tracked is unknown")
    return {name.split("/")[0] for name in listed.split("\0") if "/" in name and not name.startswith(".")}


def readme_folders() -> set[str]:
    text = (REPO_ROOT / "README.md").read_text()
    table = text[text.index("| folder | what it holds |") :].split("\n\n")[0]
    return set(re.findall(r"^\| `([^`/]+)/` \|", table, re.MULTILINE))


def test_the_readme_map_matches_the_tree():
    tracked, mapped = tracked_top_level_folders(), readme_folders()
    assert mapped == tracked, (
        f"README.md's 'What is here' table: missing {sorted(tracked - mapped)}, "
        f"naming folders that are not tracked {sorted(mapped - tracked)}"
    )
