"""Top-k on the CPU (Triton interpreter): the tie-aware check, and the NaN family the scored shapes omit.

The engine's input-mutation check compares inputs with torch.equal, which reads any NaN as a change, so
NaN inputs cannot be scored yet; the house kernel's NaN semantics (NaN above +inf) are tested here.
"""

import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")

from scoring.problem import import_file, load_problem  # noqa: E402

PROBLEM_DIR = Path(__file__).resolve().parents[2] / "problems" / "topk"
problem = load_problem(PROBLEM_DIR)
house = import_file(PROBLEM_DIR / "solutions" / "house.py", "topk_house_test")


def _inputs(family, batch=3, n=3000, k=20, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return problem.module.make_inputs({"batch": batch, "n": n, "k": k, "family": family}, {}, gen, "cpu")


def _check(out, inputs):
    return problem.module.check(out, problem.module.reference({}, inputs), {}, inputs, problem.spec.tolerance)


@pytest.mark.parametrize("family,k", [(4, 20), (4, 1), (3, 33), (1, 64), (2, 7)])
def test_house_kernel_is_exact_on_adversarial_families(family, k):
    inputs = _inputs(family, k=k)
    assert _check(house.run({}, **inputs), inputs).passed


@pytest.mark.parametrize("family,k", [(0, 64), (1, 33), (2, 8), (3, 16), (4, 5)])
def test_exact_across_several_chunks(family, k):
    """Small chunks force several chunks per row and the exact (tie/cluster) path in both passes."""
    inputs = _inputs(family, batch=2, n=5000, k=k, seed=1)
    config = house.pick_config(2, 5000, k, CHUNK=1024)
    assert _check(house.topk_indices(inputs["x"], k, config), inputs).passed


def test_nan_ranks_above_inf():
    x = torch.zeros((1, 300))
    x[0, [10, 50, 70, 90, 200, 250]] = torch.tensor([1.0, float("nan"), float("inf"), 3.0, float("nan"), float("inf")])
    inputs = {"x": x, "k": 4}
    out = house.run({}, **inputs)
    values = x.gather(1, out)[0]
    assert torch.isnan(values[:2]).all() and values[2] == float("inf") and values[3] == float("inf")
    assert _check(out, inputs).passed


def test_nan_as_smallest_fails_the_nan_family():
    inputs = _inputs(4, k=20)
    cleaned = torch.where(torch.isnan(inputs["x"]), torch.full_like(inputs["x"], -float("inf")), inputs["x"])
    stats = _check(house.run({}, x=cleaned, k=20), inputs)
    assert not stats.passed and "differ" in stats.detail


def test_any_tie_break_passes_and_wrong_answers_fail():
    x = torch.tensor([[5.0, 7.0, 7.0, 1.0, 7.0, 2.0]])
    inputs = {"x": x, "k": 2}
    for good in ([1, 2], [4, 1], [2, 4]):
        assert _check(torch.tensor([good]), inputs).passed
    for bad, why in (([1, 1], "repeated"), ([1, 0], "differ"), ([6, 1], "outside"), ([-1, 1], "outside")):
        stats = _check(torch.tensor([bad]), inputs)
        assert not stats.passed and why in stats.detail


def test_unsorted_output_fails():
    inputs = _inputs(0, k=10)
    assert not _check(house.run({}, **inputs).flip(1), inputs).passed
