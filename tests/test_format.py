"""The code is in the one format pyproject.toml configures (`ruff format`; what it leaves alone, and why, is
there): a change that is not formatted fails here with the command that fixes it."""

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_code_is_formatted():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    assert Path(ruff).is_file(), "ruff is not installed: `bash scripts/setup.sh test` installs the test extra"
    checked = subprocess.run([ruff, "format", "--check", "."], cwd=REPO, capture_output=True, text=True)
    assert checked.returncode == 0, (
        f"not formatted; run `ruff format .`:\n{checked.stdout[-3000:]}{checked.stderr[-2000:]}"
    )
