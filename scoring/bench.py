"""Timing for lab scripts (problems/<name>/lab/): a zero-argument callable timed the way the scorer times
a solution call, so that a tuning sweep and a scoring run measure the same thing.

Each call goes through the scorer's own timer (scoring/timing.py): on a GPU the L2 flush (a write of twice
its size, read back), the persisting-L2 reset, the launch gate (scoring/launch_gate.py) and CUDA events; in
the CPU profile the host clock. Warm-up and the stopping rule (median's relative standard error under
`target_rse`, or `budget_s` spent, or `max_calls`) are the scorer's too. What the scorer adds around this
(fresh inputs per call, checks, audits) is the lab script's business: the callable is timed as given.

    from scoring.bench import time_calls
    stats = time_calls(lambda: kernel(x, w), device="cuda", budget_s=2.0)
    print(stats.median_ms, stats.p10_ms, stats.p90_ms, stats.count)
"""

from __future__ import annotations

import functools
import gc
import time
from typing import Any, Callable

import torch

from scoring.timing import CallTiming, CpuTimer, GpuTimer, TimingPolicy, TimingStats, repeat_until_stable

SCORER_POLICY = TimingPolicy()  # the scorer's defaults; a lab call overrides only what it names


@functools.lru_cache(maxsize=None)
def timer_for(device: str) -> GpuTimer | CpuTimer:
    """One timer per device for the whole script: building a GPU timer allocates its flush buffer, compiles
    the launch gate and calibrates the idle synchronise tail, which a sweep should pay once."""
    resolved = torch.device(device)
    if resolved.type == "cuda":
        index = resolved.index if resolved.index is not None else torch.cuda.current_device()
        resolved = torch.device("cuda", index)
        return GpuTimer(resolved, torch.cuda.get_device_properties(resolved).L2_cache_size)
    return CpuTimer()


def _timed_once(timer: GpuTimer | CpuTimer, fn: Callable[[], Any]) -> CallTiming:
    """One call as the scoring worker makes it (scoring/worker/server.py): flush and gate first, no garbage
    collection in the window."""
    timer.before_call()
    collecting = gc.isenabled()
    gc.disable()  # a collection inside the window would stall the launch past the gate (worker/server.py)
    try:
        _, timing = timer.time_call(fn)
    finally:
        if collecting:
            gc.enable()
    return timing


def time_calls(
    fn: Callable[[], Any],
    *,
    device: str | torch.device = "cuda",
    warmup_calls: int = SCORER_POLICY.warmup_calls,
    warmup_s: float = SCORER_POLICY.warmup_s,
    min_calls: int = SCORER_POLICY.min_calls,
    min_timed_s: float = SCORER_POLICY.min_timed_s,
    max_calls: int = SCORER_POLICY.max_calls,
    target_rse: float = SCORER_POLICY.target_rse,
    budget_s: float = SCORER_POLICY.budget_s,
    timer: GpuTimer | CpuTimer | None = None,
) -> TimingStats:
    """Time `fn()` until its median is stable (the scorer's rule); the statistics are scoring.timing's.

    `device` picks the scorer's timer (`timer_for`); `timer` passes one in instead. Warm-up runs at least
    `warmup_calls` calls and `warmup_s` seconds (clocks idle low until work arrives), each through the
    timer like the timed calls."""
    if min_calls < 1 or max_calls < min_calls:
        raise ValueError(
            f"time_calls: need 1 <= min_calls <= max_calls, got min_calls={min_calls}, max_calls={max_calls}"
        )
    timer = timer or timer_for(str(device))
    policy = TimingPolicy(
        warmup_calls=warmup_calls,
        warmup_s=warmup_s,
        min_calls=min_calls,
        min_timed_s=min_timed_s,
        max_calls=max_calls,
        target_rse=target_rse,
        budget_s=budget_s,
    )
    warm_start, warm = time.perf_counter(), 0
    while warm < policy.warmup_calls or time.perf_counter() - warm_start < policy.warmup_s:
        _timed_once(timer, fn)
        warm += 1
    return repeat_until_stable(lambda: _timed_once(timer, fn), policy)


def median_ms(fn: Callable[[], Any], **options) -> float:
    """time_calls(fn, **options).median_ms: the one number a config sweep compares."""
    return time_calls(fn, **options).median_ms
