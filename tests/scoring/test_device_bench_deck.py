"""scripts/device_bench_deck.sh on the CPU, around a stand-in for bench_deck.py: the copy's HEAD set from the
bundle, the compile caches empty in a folder of the call's own, the arguments passed on, and what was written
packed into $OUT/LABEL.tar.gz, also when the time limit stops the bench."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.scoring.test_device_head import git, repository

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
# Writes what it was given where bench_deck.py writes (out=: the deck JSON, results=: the runs), then sleeps.
STAND_IN = '''import json, os, sys, time
from pathlib import Path
options = dict(arg.split("=", 1) for arg in sys.argv[1:])
Path(options["results"], "h100_sxm").mkdir(parents=True)
Path(options["results"], "h100_sxm", "run.json").write_text("{}")
Path(options["out"], "h100_sxm").mkdir(parents=True)
seen = {"argv": sys.argv[1:], "triton": os.environ["TRITON_CACHE_DIR"], "inductor": os.environ["TORCHINDUCTOR_CACHE_DIR"]}
Path(options["out"], "h100_sxm", "deck.json").write_text(json.dumps(seen))
time.sleep(float(options.get("sleep_s", "0")))
'''


def _copy_on_the_device(tmp_path: Path) -> Path:
    files = {
        "scripts/device_head.sh": (SCRIPTS / "device_head.sh").read_text(),
        "scripts/device_bench_deck.sh": (SCRIPTS / "device_bench_deck.sh").read_text(),
        "scripts/bench_deck.py": STAND_IN,
        ".gitignore": "/.scratch/\n",
    }
    here, there = tmp_path / "here", tmp_path / "there"
    repository(here, files)
    subprocess.run(["bash", "scripts/device_head.sh", "pack"], cwd=here, check=True, capture_output=True)
    shutil.copytree(here, there, ignore=shutil.ignore_patterns(".git"))
    repository(there / "stale-git", {"x": "stale\n"})  # a .git of another history, as the device tool leaves
    shutil.move(there / "stale-git" / ".git", there / ".git")
    shutil.rmtree(there / "stale-git")
    return there


def _run(there: Path, out: Path, *args: str, limit_s: str = "60") -> subprocess.CompletedProcess:
    shims = there.parent / "bin"  # the GPU machine has `python`; a CI machine may have only python3
    shims.mkdir(exist_ok=True)
    if not (shims / "python").exists():
        (shims / "python").symlink_to(sys.executable)
    env = {**os.environ, "OUT": str(out), "LIMIT_S": limit_s, "PATH": f"{shims}:{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "scripts/device_bench_deck.sh", "deck", *args],
        cwd=there,
        text=True,
        capture_output=True,
        timeout=120,
        env=env,
    )


def test_the_deck_runs_at_the_packed_commit_with_empty_caches_and_comes_back_packed(tmp_path):
    there, out = _copy_on_the_device(tmp_path), tmp_path / "out"
    out.mkdir()
    done = _run(there, out, "problems=softmax", "cold_runs=2")
    assert done.returncode == 0, done.stderr
    assert git(there, "rev-parse", "HEAD") == git(tmp_path / "here", "rev-parse", "HEAD")
    with tarfile.open(out / "deck.tar.gz") as packed:
        names = packed.getnames()
        seen = json.loads(packed.extractfile("speed/h100_sxm/deck.json").read())
    assert "runs/h100_sxm/run.json" in names
    assert seen["argv"][0] == "device=cuda" and seen["argv"][-2:] == ["problems=softmax", "cold_runs=2"]
    assert seen["triton"].startswith("/tmp/deck-deck-") and seen["inductor"].startswith(
        seen["triton"].rsplit("/", 1)[0]
    )
    again = _run(there, out, "problems=softmax")
    with tarfile.open(out / "deck.tar.gz") as packed:
        second = json.loads(packed.extractfile("speed/h100_sxm/deck.json").read())
    assert again.returncode == 0 and second["triton"] != seen["triton"]  # each call's caches start empty


def test_the_time_limit_stops_the_bench_and_what_it_wrote_still_comes_back(tmp_path):
    there, out = _copy_on_the_device(tmp_path), tmp_path / "out"
    out.mkdir()
    done = _run(there, out, "sleep_s=30", limit_s="2")
    assert done.returncode == 124  # timeout's status: the bench was stopped
    with tarfile.open(out / "deck.tar.gz") as packed:
        assert "runs/h100_sxm/run.json" in packed.getnames()
