"""Timing statistics: the stopping rule's error estimate and the side-stream (X10) tail rule."""

import time

import pytest

from scoring.audit import audited_call_index
from scoring.timing import (
    CallTiming,
    TimingPolicy,
    calls_the_floor_makes,
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
    stats = repeat_until_stable(lambda: next(calls), TimingPolicy(min_calls=10, min_timed_s=0.0, max_calls=500,
                                                                  target_rse=0.005))
    assert stats.stop_reason == "converged" and stats.count == 10
    assert stats.median_ms == pytest.approx(1.001)


def sleeping_call(seconds: float) -> CallTiming:
    time.sleep(seconds)
    return CallTiming(1.0, 1.2, 0.0)


def test_a_stable_median_still_waits_for_the_floor_of_timed_seconds():
    started = time.perf_counter()
    stats = repeat_until_stable(lambda: sleeping_call(0.005), TimingPolicy(min_calls=10, min_timed_s=0.2,
                                                                          target_rse=0.005))
    assert stats.stop_reason == "converged"
    assert time.perf_counter() - started >= 0.2
    assert stats.count > 10  # 10 calls of 5 ms would have been 0.05 s


def test_the_floor_never_outlasts_the_budget_nor_max_calls():
    started = time.perf_counter()
    stats = repeat_until_stable(lambda: sleeping_call(0.005), TimingPolicy(min_calls=3, min_timed_s=30.0,
                                                                          budget_s=0.05, target_rse=0.005))
    assert stats.stop_reason == "converged" and time.perf_counter() - started < 1.0
    stats = repeat_until_stable(lambda: sleeping_call(0.001), TimingPolicy(min_calls=3, min_timed_s=30.0,
                                                                          max_calls=7))
    assert stats.stop_reason == "max_calls" and stats.count == 7


def test_work_that_outlives_the_timed_stream_is_refused():
    idle_tail_ms = 0.008  # the lent H100's idle p90; honest calls showed 15-35 us tails after real work
    honest = summarise([CallTiming(0.04, 0.3, 0.035)] * 5, "converged")
    assert honest.outlived_detail(idle_tail_ms) is None
    side_stream = summarise([CallTiming(0.01, 0.9, 0.6)] * 5, "converged")
    assert side_stream.outlived_detail(idle_tail_ms).startswith("X10")


def test_deciles_stay_within_the_calls_however_few_and_spread():
    """Three spread calls (a loaded CPU): the exclusive default method put p10 at -3.4 ms, below every call."""
    stats = summarise([CallTiming(0.6, 0.6, 0.0, 0.6), CallTiming(21.4, 21.4, 0.0, 21.4),
                       CallTiming(35.5, 35.5, 0.0, 35.5)], "max_calls")
    assert 0.6 <= stats.p10_ms <= stats.median_ms <= stats.p90_ms <= 35.5
    assert 0.6 <= stats.launch_p90_ms <= 35.5


def test_the_calls_a_shape_surely_gets_follow_the_floor_within_the_policy():
    policy = TimingPolicy(min_calls=10, min_timed_s=0.25, max_calls=400, budget_s=15.0)
    assert calls_the_floor_makes(policy, 0.003) == 83  # 3 ms calls: the floor, not min_calls
    assert calls_the_floor_makes(policy, 0.05) == 10  # 50 ms calls: min_calls
    assert calls_the_floor_makes(policy, 1e-6) == 400  # never past max_calls
    assert calls_the_floor_makes(TimingPolicy(min_calls=10, min_timed_s=5.0, budget_s=0.1), 0.001) == 100
    assert calls_the_floor_makes(policy, 0.0) == 400


def test_the_audited_call_index_covers_every_call_and_no_more():
    assert [audited_call_index(share, 4) for share in (0.0, 0.24, 0.25, 0.74, 0.999999)] == [0, 0, 1, 2, 3]
    assert audited_call_index(0.5, 1) == 0


def test_the_timing_does_not_stop_before_the_audited_call_has_come():
    calls = iter([CallTiming(1.0, 1.2, 0.0)] * 1000)
    made = []

    def one_call():
        made.append(1)
        return next(calls)

    policy = TimingPolicy(min_calls=10, min_timed_s=0.0, max_calls=500, target_rse=0.005)
    stats = repeat_until_stable(one_call, policy, may_stop=lambda: len(made) > 37)
    assert stats.stop_reason == "converged" and stats.count == 38
    stats = repeat_until_stable(lambda: next(calls), TimingPolicy(min_calls=10, min_timed_s=0.0, max_calls=20),
                                may_stop=lambda: False)
    assert stats.stop_reason == "max_calls" and stats.count == 20  # max_calls ends it regardless
