"""README's run setup in a fresh virtual environment gives working commands, and installs offline.

The environment is made without the system's site-packages, so every library a command imports must come from
`bash scripts/setup.sh` (torch included: the CPU build this workplace serves from local disk, about a minute).
Then, as README says: `python -m board`, `python -m viewer --help`, `python -m harnesses.run help` and a fake
agent's harness run with its transcript page rendered and its solution scored. Last, with no package index at
all, setup.sh installs the clone again (no build isolation once setuptools is there) where pip's isolated build
cannot."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SITE_LIBRARIES = ("jinja2", "pandas", "plotly", "markdown_it", "pygments", "pyarrow", "jsonschema")
FAST_SCORE = "shapes=visible min_calls=2 max_calls=2 warmup_s=0 check_seeds=1 audits=false progress=false"
NO_INDEX = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "PIP_EXTRA_INDEX_URL": ""}  # pip reaches no package at all

pytestmark = pytest.mark.slow


def _run(argv, env_changes=None, timeout_s=600) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(env_changes or {})
    return subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout_s)


def _ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, f"{proc.args} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def _sandbox() -> str:
    """bwrap where it can make namespaces here (as the harness tests require it), else no isolation."""
    if (
        shutil.which("bwrap")
        and subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-net", "true"], capture_output=True).returncode
        == 0
    ):
        return "bwrap"
    return "none"


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    _ok(_run([sys.executable, "-m", "venv", str(venv)]))
    python = venv / "bin" / "python"
    assert _run([str(python), "-c", "import torch"]).returncode != 0  # truly fresh: nothing from the system
    out = _ok(_run(["bash", "scripts/setup.sh"], {"PYTHON": str(python)}, timeout_s=900))
    assert "setup: done (run; extras site" in out
    return python


def test_run_setup_installs_the_site_libraries_into_the_environment(venv_python):
    probe = "import json, importlib; print(json.dumps({n: importlib.import_module(n).__file__ for n in %r}))"
    found = json.loads(_ok(_run([str(venv_python), "-c", probe % (SITE_LIBRARIES,)])))
    venv = venv_python.parent.parent
    assert all(Path(path).is_relative_to(venv) for path in found.values()), found


def test_board_builds_the_site_from_the_committed_results(venv_python, tmp_path):
    out = _ok(_run([str(venv_python), "-m", "board", f"out={tmp_path / 'site'}", "quiet=true"]))
    assert "built" in out
    assert (tmp_path / "site" / "index.html").is_file()


def test_viewer_and_harness_help(venv_python):
    assert "python -m viewer" in _ok(_run([str(venv_python), "-m", "viewer", "--help"]))
    assert "render" in _ok(_run([str(venv_python), "-m", "harnesses.run", "help"]))


def test_fake_agent_run_renders_its_transcript_and_writes_run_json(venv_python, tmp_path):
    cli_dir = tmp_path / "fake_clis"
    _ok(_run([str(venv_python), "-c", f"from harnesses import fake; fake.install({str(cli_dir)!r})"]))
    out = tmp_path / "results"
    _ok(
        _run(
            [
                str(venv_python),
                "-m",
                "harnesses.run",
                "harness=claude",
                "model=fake-model",
                "problem=fp8_gemm",
                f"out={out}",
                "device=cpu",
                "network=none",
                f"sandbox={_sandbox()}",
                f"cli_dir={cli_dir}",
                "render=true",
                f"score_args={FAST_SCORE}",
            ]
        )
    )
    (run_dir,) = (out / "cpu" / "runs").iterdir()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["complete"] and run["page"] == "transcript.html"
    assert "<html" in (run_dir / "transcript.html").read_text()[:2000].lower()
    assert json.loads((run_dir / "result.json").read_text())["status"] == "passed"


def test_setup_installs_the_clone_with_no_package_index(venv_python):
    # setup.sh skips pip's build isolation once setuptools can build the clone; a fresh venv's bundled setuptools
    # is too old, so bring a current one while the index is still reachable.
    _ok(_run([str(venv_python), "-m", "pip", "install", "-q", "setuptools>=70.1"]))
    isolated = _run([str(venv_python), "-m", "pip", "install", "-q", "-e", "."], NO_INDEX)
    assert isolated.returncode != 0 and "setuptools" in isolated.stdout + isolated.stderr
    out = _ok(_run(["bash", "scripts/setup.sh"], {"PYTHON": str(venv_python), **NO_INDEX}))
    assert "setup: done" in out
