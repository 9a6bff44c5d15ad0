"""The topk adapter scores a kernelbench.com 05_topk_bitonic solution unchanged: a plain-torch model in their
interface passes our scorer on the CPU profile, the same model marking taken entries with -inf (right on
their N(0, 1) rows) fails it on the -inf family, the adapter returns their indices (not their values), and
their Model is built once per (batch, n, k) holding their `_dummy` buffer."""

import json

import pytest
import torch

from problems.topk.problem import make_inputs, reference
from tests.harnesses.kernelbench_scoring import MODELS, load_adapter, load_module, score

PROBLEM = "topk"


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, PROBLEM, "topk.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_taken_entries_marked_with_minus_inf_are_caught(tmp_path):
    code, result = score(tmp_path, PROBLEM, "topk_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")
    failed = {shape["name"]: shape["detail"] for shape in result["systems"][0]["shapes"] if shape["status"] != "passed"}
    assert list(failed) == ["neg_inf_4000"] and "repeated indices" in failed["neg_inf_4000"]


@pytest.mark.parametrize("family", [0, 1, 2, 3, 4])
def test_their_model_through_the_adapter_selects_the_reference_values(family):
    """Every family, NaN included: x.gather(indices) equals our reference's sorted top-k (NaN matches NaN)."""
    adapter = load_adapter(PROBLEM, load_module("their_topk_model", MODELS / "topk.py").Model)
    shape = {"batch": 3, "n": 700, "k": 20, "family": family}
    inputs = make_inputs(shape, {}, torch.Generator().manual_seed(family), "cpu")
    out = adapter.run(adapter.prepare(), **inputs)
    expected = reference({}, inputs)
    got = inputs["x"].gather(1, out).double()
    assert out.dtype == torch.int64 and out.shape == (3, 20)
    assert bool(((got == expected) | (got.isnan() & expected.isnan())).all())
    assert all(row.unique().numel() == 20 for row in out)


def test_order_keys_follow_the_float_order_with_nan_on_top():
    their_model = load_module("their_topk_model", MODELS / "topk.py")
    ascending = torch.tensor([float("-inf"), -3.5, -1e-30, -0.0, 1e-30, 2.0, float("inf"), float("nan")])
    keys = their_model.order_keys(ascending)
    assert bool((keys[1:] > keys[:-1]).all())
    assert bool((keys > their_model.BELOW_EVERY_KEY).all())


def test_the_adapter_returns_their_indices_and_builds_one_model_per_shape():
    built = []

    class Recording(torch.nn.Module):
        def __init__(self, batch, n, k):
            super().__init__()
            built.append((batch, n, k))
            self.k = k
            self.register_buffer("_dummy", torch.ones(1))  # check.py replaces it with the reference's zeros

        def forward(self, x):
            indices = torch.full((x.shape[0], self.k), int(self._dummy.item()), dtype=torch.int64)
            return [torch.zeros(x.shape[0], self.k), indices]  # a list: their check.py accepts one

    adapter = load_adapter(PROBLEM, Recording)
    state = adapter.prepare()
    calls = [(torch.zeros(2, 50), 5), (torch.ones(2, 50), 5), (torch.zeros(2, 50), 7), (torch.zeros(4, 50), 7)]
    outs = [adapter.run(state, x, k) for x, k in calls]
    assert [tuple(out.shape) for out in outs] == [(2, 5), (2, 5), (2, 7), (4, 7)]
    assert all(out.dtype == torch.int64 and int(out.max()) == 0 for out in outs)
    assert built == [(2, 50, 5), (2, 50, 7), (4, 50, 7)]
    assert adapter.their_init_args(torch.zeros(3, 9), 4) == (3, 9, 4)
