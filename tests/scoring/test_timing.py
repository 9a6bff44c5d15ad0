"""Timing statistics: the stopping rule's error estimate and the side-stream (X10) tail rule."""

import time

import pytest

from scoring.audit import AuditReservoir
from scoring.timing import (
    CallTiming,
    TimingPolicy,
    median_rse,
    repeat_until_stable,
    summarise,
)


def test_median_rse_shrinks_with_more_samples_and_is_infinite_when_too_few():
    assert median_rse([1.0, 1.0]) == float("inf")
    spread = [1.0, 1.1, 0.9, 1.05, 0.95] * 4
    assert median_rse(spread * 4) < median_rse(spread)


def test_repetition_stops_when_the_median_is_stable():
    calls = iter([CallTiming(1.0 + 0.001 * (i % 3), 1.2, 0.0) for i in range(1000)])
    stats = repeat_until_stable(
        lambda: next(calls), TimingPolicy(min_calls=10, min_timed_s=0.0, max_calls=500, target_rse=0.005)
    )
    assert stats.stop_reason == "converged" and stats.count == 10
    assert stats.median_ms == pytest.approx(1.001)


def sleeping_call(seconds: float) -> CallTiming:
    time.sleep(seconds)
    return CallTiming(1.0, 1.2, 0.0)


def test_a_stable_median_still_waits_for_the_floor_of_timed_seconds():
    started = time.perf_counter()
    stats = repeat_until_stable(
        lambda: sleeping_call(0.005), TimingPolicy(min_calls=10, min_timed_s=0.2, target_rse=0.005)
    )
    assert stats.stop_reason == "converged"
    assert time.perf_counter() - started >= 0.2
    assert stats.count > 10  # 10 calls of 5 ms would have been 0.05 s


def test_the_floor_never_outlasts_the_budget_nor_max_calls():
    started = time.perf_counter()
    stats = repeat_until_stable(
        lambda: sleeping_call(0.005), TimingPolicy(min_calls=3, min_timed_s=30.0, budget_s=0.05, target_rse=0.005)
    )
    assert stats.stop_reason == "converged" and time.perf_counter() - started < 1.0
    stats = repeat_until_stable(lambda: sleeping_call(0.001), TimingPolicy(min_calls=3, min_timed_s=30.0, max_calls=7))
    assert stats.stop_reason == "max_calls" and stats.count == 7


def test_work_that_outlives_the_timed_stream_is_refused():
    idle_tail_ms = 0.008  # the lent H100's idle p90; honest calls showed 15-35 us tails after real work
    honest = summarise([CallTiming(0.04, 0.3, 0.035)] * 5, "converged")
    assert honest.outlived_detail(idle_tail_ms) is None
    side_stream = summarise([CallTiming(0.01, 0.9, 0.6)] * 5, "converged")
    assert side_stream.outlived_detail(idle_tail_ms).startswith("X10")


def test_deciles_stay_within_the_calls_however_few_and_spread():
    """Three spread calls (a loaded CPU): the exclusive default method put p10 at -3.4 ms, below every call."""
    stats = summarise(
        [CallTiming(0.6, 0.6, 0.0, 0.6), CallTiming(21.4, 21.4, 0.0, 21.4), CallTiming(35.5, 35.5, 0.0, 35.5)],
        "max_calls",
    )
    assert 0.6 <= stats.p10_ms <= stats.median_ms <= stats.p90_ms <= 35.5
    assert 0.6 <= stats.launch_p90_ms <= 35.5


def _kept_slots(draw_seed: int, calls: int) -> tuple[int, int]:
    """(the timed call the reservoir keeps among `calls`, how many it profiled) for one seed."""
    reservoir = AuditReservoir(draw_seed)
    kept = None
    for index in range(calls):
        if reservoir.profile_before(index):
            kept = index
    return kept, reservoir.draws


@pytest.mark.parametrize("calls", [1, 10, 83, 400])
def test_the_audit_reservoir_keeps_each_timed_call_equally_often_however_many_there_are(calls):
    """Slot 0 is always drawn (every timed shape has its audited call before timing may stop), the kept call
    is uniform over the calls made (a chi-square test at p = 0.001 over 10000 seeds), and the profiled calls
    number the harmonic number of `calls` on average."""
    seeds = 10000
    counts = [0] * calls
    profiled = 0
    for seed in range(seeds):
        kept, draws = _kept_slots(seed, calls)
        counts[kept] += 1
        profiled += draws
    assert all(AuditReservoir(seed).profile_before(0) for seed in range(100))
    if calls > 1:
        expected = seeds / calls
        chi_square = sum((count - expected) ** 2 / expected for count in counts)
        # the 0.999 quantile of chi-square with calls - 1 degrees of freedom (Wilson-Hilferty)
        dof = calls - 1
        limit = dof * (1 - 2 / (9 * dof) + 3.0902 * (2 / (9 * dof)) ** 0.5) ** 3
        assert chi_square < limit, (chi_square, limit)
    harmonic = sum(1 / k for k in range(1, calls + 1))
    assert abs(profiled / seeds - harmonic) < 0.05 * harmonic


def test_a_late_switch_is_caught_as_often_as_it_covers_the_timed_calls():
    """A solution that changes path after its first k of n timed calls is audited on the changed path with
    probability 1 - k/n: what an index fixed before timing (drawn among the first min_calls) left at zero."""
    seeds, calls, honest_calls = 20000, 60, 10
    caught = sum(_kept_slots(seed, calls)[0] >= honest_calls for seed in range(seeds)) / seeds
    assert abs(caught - (1 - honest_calls / calls)) < 0.015, caught
