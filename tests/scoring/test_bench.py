"""scoring.bench: lab scripts' timing goes through the scorer's timer and stopping rule (CPU profile here)."""

import time

import pytest

from scoring import bench
from scoring.timing import CpuTimer


class CountingTimer(CpuTimer):
    """The scorer's CPU timer, counting what bench asks of it."""

    def __init__(self):
        super().__init__()
        self.flushes = self.timed = 0

    def before_call(self):
        self.flushes += 1
        super().before_call()

    def time_call(self, fn):
        self.timed += 1
        return super().time_call(fn)


def sleep_briefly():
    time.sleep(0.0002)


def test_statistics_are_consistent_and_every_call_goes_through_the_timer():
    timer = CountingTimer()
    stats = bench.time_calls(
        sleep_briefly,
        timer=timer,
        warmup_calls=3,
        warmup_s=0.0,
        min_calls=10,
        max_calls=60,
        target_rse=0.5,
        budget_s=5.0,
    )
    assert 10 <= stats.count <= 60
    assert 0 < stats.p10_ms <= stats.median_ms <= stats.p90_ms
    assert stats.median_ms >= 0.2  # the sleep is inside the timed window
    assert stats.stop_reason in ("converged", "budget", "max_calls")
    # Warm-up and timed calls alike: flush (before_call) then the timed call, once each per call.
    assert timer.timed == timer.flushes == stats.count + 3


def test_the_scorers_stopping_rule_decides_the_count():
    loose = bench.time_calls(
        sleep_briefly,
        timer=CpuTimer(),
        warmup_calls=0,
        warmup_s=0.0,
        min_calls=8,
        min_timed_s=0.0,
        max_calls=100,
        target_rse=10.0,
    )
    assert (loose.stop_reason, loose.count) == ("converged", 8)  # stable at the first check
    floored = bench.time_calls(
        sleep_briefly, timer=CpuTimer(), warmup_calls=0, warmup_s=0.0, min_calls=8, max_calls=100_000, target_rse=10.0
    )  # the scorer's floor of timed seconds
    assert floored.stop_reason == "converged" and floored.count > 8
    never = bench.time_calls(
        sleep_briefly,
        timer=CpuTimer(),
        warmup_calls=0,
        warmup_s=0.0,
        min_calls=5,
        max_calls=12,
        target_rse=0.0,
        budget_s=60.0,
    )
    assert (never.stop_reason, never.count) == ("max_calls", 12)
    spent = bench.time_calls(
        sleep_briefly,
        timer=CpuTimer(),
        warmup_calls=0,
        warmup_s=0.0,
        min_calls=5,
        max_calls=1000,
        target_rse=0.0,
        budget_s=0.0,
    )
    assert (spent.stop_reason, spent.count) == ("budget", 5)


def test_the_cpu_device_gets_the_scorers_cpu_timer_once():
    assert isinstance(bench.timer_for("cpu"), CpuTimer)
    assert bench.timer_for("cpu") is bench.timer_for("cpu")
    assert bench.median_ms(sleep_briefly, device="cpu", warmup_calls=1, warmup_s=0.0, min_calls=4, max_calls=4) > 0


def test_impossible_call_counts_are_refused():
    with pytest.raises(ValueError, match="min_calls"):
        bench.time_calls(sleep_briefly, device="cpu", min_calls=10, max_calls=5)
