"""The fp8_gemm adapter scores a kernelbench.com 01_fp8_gemm solution unchanged: a plain-torch model in
their interface passes our scorer on the CPU profile, the same model with a dropped K tail fails it."""

import json

import pytest
import torch

from tests.harnesses.kernelbench_scoring import load_adapter, score


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, "fp8_gemm", "fp8_gemm.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_a_dropped_k_tail_is_caught(tmp_path):
    code, result = score(tmp_path, "fp8_gemm", "fp8_gemm_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")


def test_glue_puts_a_scale_times_b_scale_into_every_channel():
    """run() on a model that records the weight_scale it sees: a_scale * b_scale in all N channels, every call,
    in the buffer object the model holds (agents read it by address)."""
    seen = []

    class Recording(torch.nn.Module):
        def __init__(self, M, N, K):
            super().__init__()
            self.register_buffer("weight", torch.zeros(N, K, dtype=torch.float8_e4m3fn))
            self.register_buffer("weight_scale", torch.zeros(N))

        def forward(self, x):
            seen.append((self.weight_scale.clone(), self.weight_scale.data_ptr(), torch.is_grad_enabled()))
            return torch.zeros(x.shape[0], self.weight.shape[0], dtype=torch.bfloat16)

    adapter = load_adapter("fp8_gemm", Recording)
    b = torch.ones(3, 16).to(torch.float8_e4m3fn)
    state = adapter.prepare(b, torch.tensor(0.25))
    a = torch.ones(2, 16).to(torch.float8_e4m3fn)
    adapter.run(state, a, torch.tensor(2.0))
    adapter.run(state, a, torch.tensor(8.0))
    assert [s.tolist() for s, _, _ in seen] == [[0.5] * 3, [2.0] * 3]
    assert seen[0][1] == seen[1][1] and not any(grad for _, _, grad in seen)
    assert list(state["models"]) == [2] and state["models"][2][0].weight is b  # assigned on meta, not copied


class WithWorkBuffer(torch.nn.Module):
    """Like an agent's model that keeps a zero-filled workspace as a non-persistent buffer."""

    def __init__(self, M, N, K):
        super().__init__()
        self.register_buffer("weight", torch.zeros(N, K, dtype=torch.float8_e4m3fn))
        self.register_buffer("weight_scale", torch.zeros(N))
        self.register_buffer("workspace", torch.zeros(M, K), persistent=False)


class NeedsRealData(WithWorkBuffer):
    """A constructor that reads a value (impossible on the meta device)."""

    def __init__(self, M, N, K):
        super().__init__(M, N, K)
        self.first = float(self.workspace[0, 0])


@pytest.mark.parametrize("model_class", [WithWorkBuffer, NeedsRealData])
def test_models_that_meta_cannot_build_are_built_as_their_check_does(model_class):
    adapter = load_adapter("fp8_gemm", model_class)
    weights = {"weight": torch.ones(4, 16).to(torch.float8_e4m3fn), "weight_scale": torch.full((4,), 3.0)}
    model = adapter.build_their_model(model_class, (2, 4, 16), weights, torch.device("cpu"))
    assert not model.training and model.weight is not weights["weight"]  # copied, as load_state_dict does
    assert torch.equal(model.weight_scale, weights["weight_scale"]) and torch.equal(model.workspace, torch.zeros(2, 16))
