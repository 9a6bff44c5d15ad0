"""Helpers shared by the kernelbench adapter tests (tests/harnesses/test_kernelbench_<problem>.py): score a
kernelbench.com-style model file from kernelbench_models/ through `python -m scoring.run` on the fast CPU profile,
and load a problem's adapter with a stub agent_solution module holding the Model class under test."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from harnesses.kernelbench import layout

REPO = Path(__file__).resolve().parents[2]
MODELS = Path(__file__).resolve().parent / "kernelbench_models"
FAST = [
    "device=cpu",
    "lines=none",
    "audits=false",
    "shapes=visible",
    "check_seeds=2",
    "min_calls=2",
    "max_calls=2",
    "warmup_s=0",
    "progress=false",
]


def score(tmp_path, problem: str, model_file: str) -> tuple[int, dict]:
    """Score MODELS/model_file through problem's adapter; returns the exit code and the result JSON."""
    solution = layout.write_solution_folder(
        tmp_path / "run", problem, (MODELS / model_file).read_bytes(), {"harness": "test", "model": model_file}
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scoring.run",
            f"problem={problem}",
            f"solution={solution}",
            f"out={tmp_path / 'results'}",
            *FAST,
        ],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    paths = [line.split("result: ", 1)[1].strip() for line in done.stdout.splitlines() if line.startswith("result: ")]
    assert paths, f"no result line\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}"
    return done.returncode, json.loads(Path(paths[-1]).read_text())


def load_module(name: str, path: Path):
    """The module at path, executed under name (not entered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_adapter(problem: str, model_class=None):
    """problem's adapter module, with agent_solution a stub holding model_class (restored afterwards)."""
    stub = type(sys)(layout.AGENT_MODULE)
    stub.Model = model_class
    saved = sys.modules.get(layout.AGENT_MODULE)
    sys.modules[layout.AGENT_MODULE] = stub
    try:
        return load_module(f"adapter_{problem}", layout.adapter_path(problem))
    finally:
        if saved is None:
            del sys.modules[layout.AGENT_MODULE]
        else:
            sys.modules[layout.AGENT_MODULE] = saved
