"""The kda adapter scores a kernelbench.com 02_kda_cutlass solution unchanged: a plain-torch model in their
interface passes our scorer on the CPU profile, the same model reading g as already cumulative fails it,
our per-call scale reaches their Model's `scale` attribute, and their Model is built once per shape."""

import json

import pytest
import torch

from problems.kda.problem import make_inputs, recurrent_kda
from tests.harnesses.kernelbench_scoring import MODELS, load_adapter, load_module, score

PROBLEM = "kda"


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, PROBLEM, "kda.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_g_read_as_cumulative_is_caught(tmp_path):
    code, result = score(tmp_path, PROBLEM, "kda_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")


def test_our_scale_reaches_their_model():
    """Their model (scale K ** -0.5 = 0.18 at K = 32) through the adapter computes our scale's output."""
    adapter = load_adapter(PROBLEM, load_module("their_kda_model", MODELS / "kda.py").Model)
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

    adapter = load_adapter(PROBLEM, Recording)
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

    adapter = load_adapter(PROBLEM, NoScale)
    q = torch.zeros(1, 4, 1, 8, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="scale"):
        adapter.run(adapter.prepare(), q, q, q, q.float(), q[..., 0], 0.5)
