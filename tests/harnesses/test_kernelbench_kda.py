"""The kda adapter scores a kernelbench.com 02_kda_cutlass solution unchanged: a plain-torch model in their
interface passes our scorer on the CPU profile, the same model reading g as already cumulative fails it,
our per-call scale reaches their Model's `scale` attribute, and their Model is built once per shape."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from harnesses.kernelbench import layout
from problems.kda.problem import make_inputs, recurrent_kda

REPO = Path(__file__).resolve().parents[2]
MODELS = Path(__file__).resolve().parent / "kernelbench_models"
PROBLEM = "kda"
FAST = ["device=cpu", "lines=none", "audits=false", "shapes=visible", "check_seeds=2", "min_calls=2",
        "max_calls=2", "warmup_s=0", "progress=false"]


def score(tmp_path, model_file: str) -> tuple[int, dict]:
    """Score MODELS/model_file through the adapter; returns the exit code and the result JSON."""
    solution = layout.write_solution_folder(tmp_path / "run", PROBLEM, (MODELS / model_file).read_bytes(),
                                            {"harness": "test", "model": model_file})
    done = subprocess.run([sys.executable, "-m", "scoring.run", f"problem={PROBLEM}", f"solution={solution}",
                           f"out={tmp_path / 'results'}", *FAST], check=False, cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    paths = [line.split("result: ", 1)[1].strip() for line in done.stdout.splitlines() if line.startswith("result: ")]
    assert paths, f"no result line\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}"
    return done.returncode, json.loads(Path(paths[-1]).read_text())


def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_adapter(model_class=None):
    """The adapter module, with agent_solution a stub holding model_class (restored afterwards)."""
    stub = type(sys)(layout.AGENT_MODULE)
    stub.Model = model_class
    saved = sys.modules.get(layout.AGENT_MODULE)
    sys.modules[layout.AGENT_MODULE] = stub
    try:
        return load_module(f"adapter_{PROBLEM}", layout.adapter_path(PROBLEM))
    finally:
        if saved is None:
            del sys.modules[layout.AGENT_MODULE]
        else:
            sys.modules[layout.AGENT_MODULE] = saved


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, "kda.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_g_read_as_cumulative_is_caught(tmp_path):
    code, result = score(tmp_path, "kda_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")


def test_our_scale_reaches_their_model():
    """Their model (scale K ** -0.5 = 0.18 at K = 32) through the adapter computes our scale's output."""
    adapter = load_adapter(load_module("their_kda_model", MODELS / "kda.py").Model)
    shape = {"B": 1, "T": 70, "H": 2, "K": 32, "V": 16}
    inputs = make_inputs(shape, {}, torch.Generator().manual_seed(3), "cpu")
    assert inputs["scale"] != shape["K"] ** -0.5
    out = adapter.run(adapter.prepare(), **inputs)
    expected, _state = recurrent_kda(*(inputs[name] for name in ("q", "k", "v", "g", "beta")), inputs["scale"])
    assert out.dtype == torch.bfloat16 and out.shape == expected.shape
    assert torch.allclose(out.double(), expected, atol=2e-2, rtol=2e-2)


def test_their_model_is_built_once_per_shape_and_scale():
    built = []

    class Recording(torch.nn.Module):
        def __init__(self, B, T, H, K, V, chunk_size=64):
            super().__init__()
            built.append((B, T, H, K, V, chunk_size))
            self.scale = float(K) ** -0.5
            self.register_buffer("_dummy", torch.zeros(1), persistent=False)

        def forward(self, q, k, v, g, beta):
            return torch.full(v.shape, self.scale, dtype=torch.bfloat16)

    adapter = load_adapter(Recording)
    state = adapter.prepare()

    def call(T, scale):
        q = torch.zeros(2, T, 3, 32, dtype=torch.bfloat16)
        v, g, beta = torch.zeros(2, T, 3, 16, dtype=torch.bfloat16), q.float(), q[..., 0]
        return float(adapter.run(state, q, q, v, g, beta, scale)[0, 0, 0, 0])

    assert [call(64, 0.5), call(64, 0.5), call(100, 0.5), call(100, 0.25)] == [0.5, 0.5, 0.5, 0.25]
    assert built == [(2, 64, 3, 32, 16, 64), (2, 100, 3, 32, 16, 64), (2, 100, 3, 32, 16, 64)]


def test_a_model_without_a_scale_attribute_is_refused():
    class NoScale(torch.nn.Module):
        def __init__(self, B, T, H, K, V, chunk_size=64):
            super().__init__()

        def forward(self, q, k, v, g, beta):
            return v

    adapter = load_adapter(NoScale)
    q = torch.zeros(1, 4, 1, 8, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="scale"):
        adapter.run(adapter.prepare(), q, q, q, q.float(), q[..., 0], 0.5)
