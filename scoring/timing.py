"""Timing one solution call: device events on the GPU, a host clock in the CPU profile.

Before every timed call the GPU timer resets persisting-L2 lines, writes a buffer twice the size of the
device's L2 (so no operand survives in L2 from the previous call, X12) and reads it back (so the L2 holds
clean lines: the flush's write-back is not charged to the call), then closes the launch gate
(scoring/launch_gate.py): the timed stream waits while the host records the start event, runs the
solution and records the end event, and runs on when the gate opens after that, so the events time the
call's device work without the host's launch time (up to the gate's timeout). The worker first asks
`residency_detail()` whether the solution raised the persisting-L2 set-aside or put a persisting
access-policy window on the timed stream (scoring/l2_residency.py): the reset clears persisting lines but
leaves both settings in force. Once the end event has completed, a device-wide synchronise measures how
long work on other streams outlived it (X10: a solution that launches on a side stream escapes the
events, but not this tail). The host wall-clock time of the bracket and the host time the solution took
to return are kept too, as cross-checks. Repetition stops when the median's relative standard error
falls under the target or the budget runs out.
"""

from __future__ import annotations

import ctypes
import math
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, NamedTuple

import torch

from scoring.l2_residency import (
    declare_signatures,
    read_persisting_l2,
    residency_detail,
)


@dataclass(frozen=True)
class TimingPolicy:
    warmup_calls: int = 5
    warmup_s: float = 0.3  # clocks idle low (345 MHz on an H200) until work arrives: warm up in time, not calls
    min_calls: int = 10
    # Timed calls go on for at least this long (their checks included, never past budget_s), whatever the
    # error estimate says after min_calls: ten calls of a few ms each gave medians whose run-to-run spread
    # exceeded their own estimated error; 50 agreed better (an H100 A/B, docs/measurements.md, "Repeat
    # agreement").
    # A shape whose calls take 5 ms or less gets 50 or more; a slow one (kda's 50 ms) is left at ten.
    min_timed_s: float = 0.25
    max_calls: int = 400
    target_rse: float = 0.005
    budget_s: float = 15.0

    @property
    def floor_s(self) -> float:
        """The seconds of timed calls before the stop rule may stop them: min_timed_s, never past the budget."""
        return min(self.min_timed_s, self.budget_s)


# A device-wide synchronise on an idle GPU takes ~8-16 us (p90) on the lent H100, and 15-51 us right after
# real work (measured: per-shape medians of honest house kernels, results/watch/h100_sxm/): the tail rule
# compares against this machine's own idle tail, calibrated by the timer before any solution runs.
# Work is judged to outlive the timed stream when the median tail exceeds OUTLIVED_IDLE_FACTOR times the
# idle p90, OUTLIVED_LIMIT_MS, and OUTLIVED_LIMIT_SHARE of the timed median. A kernel hidden on a side
# stream that is shorter than that margin is not caught here (the profiler's kernel time is the check).
OUTLIVED_IDLE_FACTOR = 4.0
OUTLIVED_LIMIT_MS = 0.1  # a 50 us floor refused an honest top-k shape (tail 50.1 us against 894 us timed)
OUTLIVED_LIMIT_SHARE = 0.05


class CallTiming(NamedTuple):
    device_ms: float  # between the events on the timed stream
    host_ms: float  # host wall clock from before the start event to the end of the device-wide synchronise
    tail_ms: float  # device-wide synchronise wait after the timed stream's end event completed
    launch_ms: float = 0.0  # host time from the start event's record to the solution's return (its launches)


@dataclass(frozen=True)
class TimingStats:
    median_ms: float
    p10_ms: float
    p90_ms: float
    mean_ms: float
    count: int
    rse: float  # relative standard error of the median
    host_median_ms: float
    tail_median_ms: float  # work outliving the timed stream (X10), see OUTLIVED_LIMIT_MS
    launch_median_ms: float  # host time the solution took to return (to queue its work), against the pad
    launch_p90_ms: float
    stop_reason: str  # "converged", "budget" or "max_calls"

    def as_dict(self) -> dict:
        return asdict(self)

    def outlived_detail(self, idle_tail_ms: float) -> str | None:
        """Why the timing cannot be trusted because work outlived the timed stream (X10), or None."""
        limit_ms = max(OUTLIVED_IDLE_FACTOR * idle_tail_ms, OUTLIVED_LIMIT_MS, OUTLIVED_LIMIT_SHARE * self.median_ms)
        if self.tail_median_ms > limit_ms:
            return (
                f"X10: work on other streams outlived the timed stream by {self.tail_median_ms * 1e3:.0f} us "
                f"per call (median; idle tail p90 {idle_tail_ms * 1e3:.0f} us), against "
                f"{self.median_ms * 1e3:.0f} us timed"
            )
        return None


def median_rse(samples: list[float]) -> float:
    """Relative standard error of the median, from a robust spread (IQR/1.349) and n."""
    n = len(samples)
    if n < 4:
        return math.inf
    q = statistics.quantiles(samples, n=4)
    sigma = (q[2] - q[0]) / 1.349
    med = statistics.median(samples)
    return 1.2533 * sigma / math.sqrt(n) / med if med > 0 else math.inf


def summarise(calls: list[CallTiming], stop_reason: str) -> TimingStats:
    device_ms = [c.device_ms for c in calls]
    # Inclusive deciles stay within the samples: the default (exclusive) method extrapolates below the
    # smallest and above the largest when there are fewer than 9 calls, and gave a negative p10 (-3.4 ms) for
    # three spread CPU calls, a value a result file may not hold (the site then skipped the file).
    deciles = statistics.quantiles(device_ms, n=10, method="inclusive") if len(device_ms) >= 2 else [device_ms[0]] * 9
    launch_ms = [c.launch_ms for c in calls]
    launch_p90_ms = (
        statistics.quantiles(launch_ms, n=10, method="inclusive")[-1] if len(launch_ms) >= 2 else launch_ms[0]
    )
    return TimingStats(
        statistics.median(device_ms),
        deciles[0],
        deciles[-1],
        statistics.fmean(device_ms),
        len(device_ms),
        median_rse(device_ms),
        statistics.median(c.host_ms for c in calls),
        statistics.median(c.tail_ms for c in calls),
        statistics.median(launch_ms),
        launch_p90_ms,
        stop_reason,
    )


def _loaded_cudart() -> ctypes.CDLL | None:
    """The CUDA runtime torch already loaded (found in this process's memory map)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libcudart.so" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


class GpuTimer:
    name = "cuda-events"
    # Opens by itself after this: a call that synchronises inside waits this long (scoring/launch_gate.py).
    launch_gate_timeout_us = 1000.0
    # Only if the gate cannot be built (no Triton): a fixed pause before the start event instead.
    launch_pad_us = 200.0

    def __init__(self, device: torch.device, l2_bytes: int):
        self.device = device
        self.flush_bytes = 2 * l2_bytes
        # The flush writes this buffer, then reads it: after the write alone the whole L2 is dirty, and the
        # timed call paid for writing the flush buffer back to DRAM as its own reads evicted it (11 us of a
        # 64 us memory-bound call on an H100: problems/w4a16_gemm/lab/measurements/flush_probe_h100.json).
        self._flush = torch.zeros(self.flush_bytes // 4, dtype=torch.float32, device=device)
        self._fill_value = 0.0
        self._current_stream = torch.cuda.current_stream  # captured before any solution code runs
        self._cudart = _loaded_cudart()
        self._reset_persisting = getattr(self._cudart, "cudaCtxResetPersistingL2Cache", None)
        self._baseline_l2_limit_bytes, self._l2_check_unavailable, self._l2_window_note = self._read_baseline_l2()
        self._Event = torch.cuda.Event  # captured before any solution code runs
        self._synchronize = torch.cuda.synchronize
        self._perf_counter = time.perf_counter
        clock_khz = getattr(torch.cuda.get_device_properties(device), "clock_rate", 0) or 1_980_000
        self._pad_cycles = int(self.launch_pad_us * clock_khz / 1e3)
        self._gate, self._gate_why_not = _launch_gate(device, self.launch_gate_timeout_us)
        self.idle_tail_ms = self._calibrate_idle_tail()

    def _read_baseline_l2(self) -> tuple[int, str | None, str]:
        """(persisting-L2 set-aside before any solution code runs, why the check cannot run, window note)."""
        if self._cudart is None:
            return 0, "CUDA runtime library not found in this process", ""
        try:
            declare_signatures(self._cudart)
            reading = read_persisting_l2(self._cudart, self._current_stream(self.device).cuda_stream)
        except (AttributeError, RuntimeError) as exc:  # a missing symbol, or a CUDA error code
            return 0, str(exc), ""
        note = f"; stream window not readable (CUDA error {reading.window_error})" if reading.window_error else ""
        return reading.limit_bytes, None, note

    def residency_detail(self) -> str | None:
        """X12 detail if the solution asked for persisting L2 (read on the stream the call is timed on)."""
        if self._l2_check_unavailable:
            return None
        reading = read_persisting_l2(self._cudart, self._current_stream(self.device).cuda_stream)
        return residency_detail(reading, self._baseline_l2_limit_bytes)

    def _calibrate_idle_tail(self, samples: int = 50) -> float:
        """p90 of the device-wide synchronise wait when nothing outlives the timed stream."""
        tails = []
        for _ in range(samples):
            self._flush[:1024].fill_(0)
            marker = self._Event()
            marker.record()
            marker.synchronize()
            start = self._perf_counter()
            self._synchronize()
            tails.append((self._perf_counter() - start) * 1e3)
        return statistics.quantiles(tails, n=10)[-1]

    def describe(self) -> dict[str, Any]:
        return {
            "timer": self.name,
            "l2_flush_bytes": self.flush_bytes,
            "l2_flush": "write, then read (clean lines)",
            **(
                self._gate.describe()
                if self._gate
                else {"launch_gate": f"not used ({self._gate_why_not})", "launch_pad_us": self.launch_pad_us}
            ),
            "idle_sync_tail_p90_us": self.idle_tail_ms * 1e3,
            "persisting_l2_reset": "cudaCtxResetPersistingL2Cache"
            if self._reset_persisting
            else "not verified (CUDA runtime symbol not found)",
            "persisting_l2_check": "cudaDeviceGetLimit + cudaStreamGetAttribute before every timed call"
            + self._l2_window_note
            if not self._l2_check_unavailable
            else f"not verified ({self._l2_check_unavailable})",
        }

    def before_call(self) -> None:
        if self._reset_persisting is not None:
            self._reset_persisting()
        self._fill_value = 1.0 - self._fill_value  # a different value each time, so the write cannot be elided
        self._flush.fill_(self._fill_value)
        self._flush.sum()  # reading it back evicts the dirty lines now, leaving clean ones for the call
        if self._gate:
            self._gate.hold()
        else:
            torch.cuda._sleep(self._pad_cycles)

    def time_call(self, fn: Callable[[], Any]) -> tuple[Any, CallTiming]:
        start, end = self._Event(enable_timing=True), self._Event(enable_timing=True)
        host_start = self._perf_counter()
        start.record()
        try:
            out = fn()
        except BaseException:
            if self._gate:  # the next call's gate must not wait behind this one's timeout
                self._gate.open()
            raise
        returned = self._perf_counter()
        end.record()
        if self._gate:
            self._gate.open()
        end.synchronize()
        tail_start = self._perf_counter()
        self._synchronize()
        host_end = self._perf_counter()
        return out, CallTiming(
            start.elapsed_time(end),
            (host_end - host_start) * 1e3,
            (host_end - tail_start) * 1e3,
            (returned - host_start) * 1e3,
        )


def _launch_gate(device: torch.device, timeout_us: float):
    """(the gate, None) or (None, why it could not be built)."""
    try:
        from scoring.launch_gate import LaunchGate

        return LaunchGate(device, timeout_us), None
    except Exception as exc:  # noqa: BLE001 -- any failure: the fixed pause is used and the result says why
        return None, f"{type(exc).__name__}: {exc}"


class CpuTimer:
    name = "host-perf-counter (CPU profile)"
    idle_tail_ms = 0.0  # no streams: nothing can outlive the call

    def __init__(self):
        self._perf_counter = time.perf_counter

    def describe(self) -> dict[str, Any]:
        return {
            "timer": self.name,
            "l2_flush_bytes": 0,
            "persisting_l2_reset": "not applicable (CPU profile)",
            "persisting_l2_check": "not applicable (CPU profile)",
        }

    def residency_detail(self) -> str | None:
        return None  # no L2 to keep anything in

    def before_call(self) -> None:
        pass

    def time_call(self, fn: Callable[[], Any]) -> tuple[Any, CallTiming]:
        start = self._perf_counter()
        out = fn()
        elapsed_ms = (self._perf_counter() - start) * 1e3
        return out, CallTiming(elapsed_ms, elapsed_ms, 0.0, elapsed_ms)


def repeat_until_stable(one_call: Callable[[], CallTiming], policy: TimingPolicy) -> TimingStats:
    """Call `one_call` until the median device time is stable or the budget is spent: never before
    `min_calls` calls and `min_timed_s` seconds (or the whole budget, if that is shorter); `max_calls` ends it
    regardless."""
    calls: list[CallTiming] = []
    started = time.perf_counter()
    stop_reason = "max_calls"
    while len(calls) < policy.max_calls:
        calls.append(one_call())
        elapsed_s = time.perf_counter() - started
        if len(calls) >= policy.min_calls and elapsed_s >= policy.floor_s:
            if median_rse([c.device_ms for c in calls]) <= policy.target_rse:
                stop_reason = "converged"
                break
            if elapsed_s >= policy.budget_s:
                stop_reason = "budget"
                break
    return summarise(calls, stop_reason)
