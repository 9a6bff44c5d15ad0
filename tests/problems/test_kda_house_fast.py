"""The candidate house KDA kernel (problems/kda/lab/house_fast.py, issue 37) on the CPU, in Triton's interpreter.

Every variant of VARIANTS against the problem's fp64 reference with its tolerance (scoring.checking.compare):
partial last chunks (T not a multiple of 64), several heads and batches, K over more than one slice of the
narrowest block_k, V != K, and the strongest decay the inputs allow (g = G_MIN on every step, where a chunk's
cumulative decay reaches e^-320 and a careless factorisation overflows). The interpreter runs each program's
arithmetic in fp32 (the GPU's bf16 intermediates are not exercised) and ignores warps, stages and TMA
pipelining: this checks the algebra, the masks and the descriptors' bounds, not speed (lab/bench_fast.py, GPU).
"""

import os

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")

from scoring.checking import compare  # noqa: E402  (after TRITON_INTERPRET)
from scoring.problem import import_file  # noqa: E402
from tests.problems.kda_checks import PROBLEM_DIR, problem  # noqa: E402
from tests.problems.kda_checks import assert_matches_reference as _assert_matches_reference  # noqa: E402
from tests.problems.kda_checks import kda_inputs as _inputs  # noqa: E402

candidate = import_file(PROBLEM_DIR / "lab" / "house_fast.py", "kda_house_fast_test")


# T = 100: one full chunk and a partial one; K = 64 is two slices of block_k = 32; V = 32 != K.
VARIANT_SHAPE = dict(B=2, T=100, H=2, K=64, V=32)


@pytest.mark.parametrize("variant", sorted(candidate.VARIANTS))
def test_every_variant_matches_the_reference(variant):
    inputs = _inputs(VARIANT_SHAPE, seed=1)
    _assert_matches_reference(candidate.kda_forward(**inputs, config=candidate.VARIANTS[variant]), inputs)


@pytest.mark.parametrize("variant", ["fast", "fast-unfolded", "fast-inter-pointers", "house-intra-tma-inter"])
@pytest.mark.parametrize("gate", [None, problem.module.G_MIN, 0.0], ids=["drawn", "strongest_decay", "no_decay"])
@pytest.mark.parametrize(
    "shape",
    [dict(B=1, T=1, H=1, K=32, V=32), dict(B=1, T=64, H=3, K=32, V=64), dict(B=2, T=150, H=2, K=32, V=16)],
    ids=lambda s: "b{B}_t{T}_h{H}_k{K}_v{V}".format(**s),
)
def test_edge_shapes_and_decays(variant, gate, shape):
    inputs = _inputs(shape, seed=shape["T"], gate=gate)
    _assert_matches_reference(candidate.kda_forward(**inputs, config=candidate.VARIANTS[variant]), inputs)


def test_run_uses_the_default_variant_and_the_environment_picks_another(monkeypatch):
    """run() is what the scorer calls (the house's signature); KDA_FAST_VARIANT selects a variant by name."""
    inputs = _inputs(dict(B=1, T=70, H=2, K=32, V=32), seed=3)
    _assert_matches_reference(candidate.run(None, **inputs), inputs)
    monkeypatch.setenv(candidate.VARIANT_ENV, "fast-unfolded")
    _assert_matches_reference(candidate.run(None, **inputs), inputs)


def test_the_block_v_rule_fills_the_gpu():
    assert candidate.pick_block_v(16, 128) == 16  # b1_t32k_h16: 8 blocks of 16 -> 128 programs (the house: 64)
    assert candidate.pick_block_v(64, 128) == 64  # b2_t16k_h32: 128 programs at 64 wide
    assert candidate.pick_block_v(48, 128) == 32
    assert candidate.pick_block_v(2, 32) == 16


def test_a_wrong_kernel_would_fail_these_checks():
    """The comparison is not vacuous: the same output with the delta-rule correction dropped (beta = 0 makes
    the kernel plain gated linear attention without writes... here: zero writes, so the output is ~0) fails."""
    inputs = _inputs(VARIANT_SHAPE, seed=1)
    broken = dict(inputs, beta=torch.zeros_like(inputs["beta"]))
    out = candidate.kda_forward(**broken)
    stats = compare(out, problem.module.reference({}, inputs), problem.spec.tolerance)
    assert not stats.passed
