"""Shared fixtures for the harness tests: fake CLIs installed into a temp folder, fast scorer options."""

import importlib.util
import json
import shutil
import subprocess
import sys

import pytest

from harnesses import fake
from harnesses.config import HarnessConfig
from harnesses.kernelbench import layout


def _load_shared_adapter_module() -> None:
    """Adapters loaded by path in these tests import the module a run's folder holds beside them."""
    name = layout.SHARED_MODULE.stem
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, layout.SHARED_MODULE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module


_load_shared_adapter_module()

FAST_SCORE = "shapes=visible min_calls=2 max_calls=2 warmup_s=0 check_seeds=1 audits=false progress=false"


def _bwrap_works() -> str:
    if not shutil.which("bwrap"):
        return "bubblewrap is not installed (scripts/install_test_system_packages.sh installs it)"
    probe = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-net", "true"], capture_output=True, text=True)
    return "" if probe.returncode == 0 else f"bwrap cannot create namespaces here: {probe.stderr.strip()}"


BWRAP_PROBLEM = _bwrap_works()
needs_bwrap = pytest.mark.skipif(bool(BWRAP_PROBLEM), reason=BWRAP_PROBLEM or "ok")


@pytest.fixture
def fake_dir(tmp_path):
    """Install the fake CLIs (good behaviour); tests rewrite fake_behaviour.json for other modes."""
    return fake.install(tmp_path / "fake_clis")


def config_for(fake_dir, out, **changes) -> HarnessConfig:
    base = dict(
        model="fake-model",
        problem="fp8_gemm",
        out=str(out),
        device="cpu",
        network="none",
        cli_dir=str(fake_dir),
        score=False,
        score_args=FAST_SCORE,
    )
    base.update(changes)
    return HarnessConfig(**base)


def escape_report(run_dir) -> dict:
    """What the hostile fake reported from inside the sandbox (kept in logs/agent.stderr)."""
    for line in (run_dir / "logs" / "agent.stderr").read_text().splitlines():
        if line.startswith("ESCAPE_REPORT "):
            return json.loads(line[len("ESCAPE_REPORT ") :])
    raise AssertionError(f"no ESCAPE_REPORT line in {run_dir}/logs/agent.stderr")
