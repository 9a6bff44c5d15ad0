"""The shared helpers of the problems' per-call verification (scoring/call_checks.py), each against its contract
(docs/problems.md, "Per-call verification"): the counts and bounds they compute, the detail texts that results
and tests read, the draws they take from the generator, and no GEMM on the way. The problems' own checks are
tested whole in test_verify_call.py."""

import math

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from scoring import call_checks
from scoring.spec import Tolerance

TOL = Tolerance(rtol=1e-2, atol=1e-2, normwise=5e-3)


def test_rows_per_block_is_the_whole_rows_that_fit_and_at_least_one():
    assert call_checks.rows_per_block(100, 30) == 3
    assert call_checks.rows_per_block(100, 1000) == 1
    assert call_checks.rows_per_block(2**25, 1) == 2**25


def test_sampled_rows_are_distinct_and_are_the_generators_randperm():
    rows = call_checks.sampled_rows(50, 7, torch.Generator().manual_seed(3), "cpu")
    assert rows.tolist() == torch.randperm(50, generator=torch.Generator().manual_seed(3))[:7].tolist()
    assert len(set(rows.tolist())) == 7 and all(0 <= r < 50 for r in rows.tolist())
    assert sorted(call_checks.sampled_rows(5, 700, torch.Generator().manual_seed(0), "cpu").tolist()) == list(range(5))


@pytest.mark.parametrize("chunk", [1, 7, 64, 2**25])
def test_nonfinite_elements_are_counted_across_blocks(chunk):
    values = torch.randn(9, 11)
    values[0, 0], values[4, 5], values[8, 10] = math.nan, math.inf, -math.inf
    assert call_checks.count_nonfinite(values, chunk) == 3
    failure = call_checks.check_finite(values.to(torch.bfloat16), chunk)
    assert not failure.passed and failure.detail == "3 NaN/Inf elements"
    assert failure.bad_elements == failure.nonfinite_elements == 3 and failure.normwise_err == math.inf
    assert call_checks.check_finite(torch.randn(9, 11), chunk) is None


def test_nonfinite_failure_is_a_failure_whatever_the_count():
    assert call_checks.nonfinite_failure(0) == call_checks.nonfinite_failure(0)  # a frozen value
    assert not call_checks.nonfinite_failure(0).passed
    assert call_checks.nonfinite_failure(12).detail == "12 NaN/Inf elements"


def test_within_tolerance_takes_the_safety_factor_over_the_tolerance():
    ref = torch.tensor([1.0, -2.0, 0.0, 4.0], dtype=torch.float64)
    bound = 2.0 * (TOL.atol + TOL.rtol * ref.abs())
    inside = call_checks.within_tolerance(ref + 0.99 * bound, ref, TOL, 2.0, "entries")
    assert inside.passed and inside.detail == "" and inside.bad_elements == 0
    outside = ref + 0.99 * bound
    outside[1] = ref[1] - 1.01 * bound[1]
    stats = call_checks.within_tolerance(outside, ref, TOL, 2.0, "sampled entries")
    assert not stats.passed and stats.bad_elements == 1 and stats.nonfinite_elements == 0
    assert stats.detail == "1 of 4 sampled entries outside 2 x (atol + rtol*|ref|)"
    err = (outside - ref).abs()
    assert stats.max_abs_err == float(err.max())
    # max_rel_err skips |ref| <= atol (the 0.0 entry), the unscaled atol of the tolerance
    assert stats.max_rel_err == pytest.approx(max(float(err[i] / ref[i].abs()) for i in (0, 1, 3)))


def test_within_tolerance_reports_the_normwise_error_without_judging_it():
    ref = torch.zeros(8, dtype=torch.float64)
    stats = call_checks.within_tolerance(ref + 1.5 * TOL.atol, ref, TOL, 2.0, "entries")
    assert stats.passed and stats.normwise_err > 1e200  # ||ref|| = 0: clamped, reported, not a failure


def test_within_bounds_uses_the_bounds_as_given_and_says_them():
    ref = torch.ones(3, dtype=torch.float64)
    got = ref + torch.tensor([0.0, 0.05, 0.2], dtype=torch.float64)
    stats = call_checks.within_bounds(got, ref, 0.1, 0.0, "row sums")
    assert not stats.passed and stats.bad_elements == 1
    assert stats.detail == "1 of 3 row sums outside atol 0 + rtol 0.1 * |ref|"
    assert call_checks.within_bounds(got, ref, 0.1, 0.2, "row sums").passed


def test_random_signs_are_the_generators_randint_as_plus_minus_one():
    signs = call_checks.random_signs(5, 2, torch.Generator().manual_seed(9), "cpu")
    bits = torch.randint(0, 2, (2, 5), generator=torch.Generator().manual_seed(9))
    assert signs.dtype == torch.float64 and torch.equal(signs, bits.double() * 2 - 1)
    assert call_checks.random_signs(1, 2, torch.Generator().manual_seed(9), "cpu").shape == (1, 1)


class RefuseGemms(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        assert func.overloadpacket.__name__ not in {"mm", "addmm", "bmm", "matmul", "_scaled_mm", "dot", "mv"}
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("chunk", [1, 50, 2**25])
def test_probe_sums_are_fp64_products_without_a_gemm(chunk):
    gen = torch.Generator().manual_seed(1)
    matrix = torch.randn(13, 6, generator=gen).to(torch.bfloat16)
    signs = call_checks.random_signs(13, 2, gen, "cpu")
    vectors = torch.randn(2, 6, generator=gen, dtype=torch.float64)
    with RefuseGemms():
        sums = call_checks.signed_row_sums(matrix, signs, chunk)
        dots = call_checks.row_dots(matrix, vectors, chunk)
    assert torch.allclose(sums, signs @ matrix.double(), rtol=1e-12, atol=1e-12)
    assert torch.allclose(dots, vectors @ matrix.double().T, rtol=1e-12, atol=1e-12)


def test_probe_sums_widen_a_dtype_without_type_promotion():
    matrix = (torch.randn(7, 4) * 10).to(torch.float8_e4m3fn)
    signs = call_checks.random_signs(7, 2, torch.Generator().manual_seed(2), "cpu")
    sums = call_checks.signed_row_sums(matrix, signs, 2**25, torch.bfloat16)
    assert torch.equal(sums, signs @ matrix.to(torch.float64))  # e4m3 -> bf16 -> fp64 is exact


def test_freivalds_passes_the_exact_product_and_fails_a_zeroed_row_or_nan():
    gen = torch.Generator().manual_seed(4)
    a, b = torch.randn(32, 24, generator=gen, dtype=torch.float64), torch.randn(24, 16, generator=gen,
                                                                               dtype=torch.float64)
    ref = a @ b

    def verdict(out):
        signs = call_checks.random_signs(out.shape[0], 2, torch.Generator().manual_seed(0), "cpu")
        probed_ref = call_checks.row_dots(b.T.contiguous(), call_checks.signed_row_sums(a, signs, 2**25), 2**25)
        return call_checks.freivalds_stats(out, call_checks.signed_row_sums(out, signs, 2**25), probed_ref, TOL,
                                           2.0, 2**25)

    assert verdict(ref).passed and verdict(ref).normwise_err < 1e-12
    zeroed = ref.clone()
    zeroed[5] = 0
    stats = verdict(zeroed)
    assert not stats.passed and stats.bad_elements == 1 and stats.detail.startswith(
        "Freivalds estimate of the normwise error ") and stats.detail.endswith(
        "over 2 probe(s) exceeds 2 x the tolerance (0.01)")
    poisoned = ref.clone()
    poisoned[3, 3], poisoned[7, 1] = math.nan, math.inf
    assert call_checks.freivalds_stats(poisoned, call_checks.signed_row_sums(poisoned, torch.ones(1, 32), 2**25),
                                       torch.zeros(1, 16, dtype=torch.float64), TOL, 2.0, 5) \
        == call_checks.nonfinite_failure(2)
