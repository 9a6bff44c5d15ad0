"""Softmax on the CPU (Triton interpreter): the tolerance separates the careful kernel from careless ones.

The house kernel stays well inside 1e-6 on every family; the plain fp32 online-softmax kernel and an fp32
torch.softmax leave it on the families built for that (huge_range through the rounding of x - max alone,
which the interpreter reproduces exactly; the GPU's fast exponential adds more). GPU margins: NOTES.md.
"""

import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")

from scoring.problem import import_file, load_problem  # noqa: E402

PROBLEM_DIR = Path(__file__).resolve().parents[2] / "problems" / "softmax"
problem = load_problem(PROBLEM_DIR)
house = import_file(PROBLEM_DIR / "solutions" / "house.py", "softmax_house_test")
online = import_file(PROBLEM_DIR / "solutions" / "wrong" / "online_softmax_fp32.py", "softmax_online_test")
TOL = problem.spec.tolerance


def _draw(family, rows=2, n=6000, seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = problem.module.make_inputs({"rows": rows, "n": n, "family": family}, {}, gen, "cpu")["x"]
    return x, problem.module.reference({}, {"x": x})


def _max_rel(out, ref):
    significant = ref > TOL.atol
    return ((out.double() - ref).abs()[significant] / ref[significant]).max().item()


@pytest.mark.parametrize("family", sorted(problem.module.FAMILIES))
def test_house_kernel_is_within_a_third_of_the_bound(family):
    x, ref = _draw(family)
    assert torch.isfinite(ref).all() and ref[ref > 0].min() > 1e4 * TOL.atol  # the floor never excuses
    assert _max_rel(house.run({}, x), ref) < TOL.rtol / 3


@pytest.mark.parametrize("family", [0, 1, 2])
def test_careless_fp32_kernels_fail_the_bound(family):
    x, ref = _draw(family)
    assert _max_rel(online.run({}, x), ref) > TOL.rtol
    assert _max_rel(torch.softmax(x, dim=-1), ref) > TOL.rtol


def test_dominant_tiny_terms_matter():
    """The tiny terms are worth more than the tolerance together: dropping them must fail."""
    x, ref = _draw(2, rows=1, n=20000)
    m = x.double().amax(dim=-1, keepdim=True)
    e = torch.exp(x.double() - m)
    dominant_only = torch.where(e > 1e-3, e, torch.zeros_like(e))
    assert _max_rel(dominant_only / dominant_only.sum(), ref) > 3 * TOL.rtol


def test_masked_entries_are_exact_zeros():
    x, ref = _draw(4)
    out = house.run({}, x)
    assert (out[x == float("-inf")] == 0).all() and (ref[x == float("-inf")] == 0).all()
