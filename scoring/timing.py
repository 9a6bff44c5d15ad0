"""Timing one solution call: device events on the GPU, a host clock in the CPU profile.

Before every timed call the GPU timer resets persisting-L2 lines and writes a buffer twice the size of
the device's L2 (so no operand survives in L2 from the previous call, X12), then queues a short
device-side pause. The call is bracketed by CUDA events and followed by a device-wide synchronise.
Flush and pause keep the GPU busy while the host enqueues the solution's launches, so up to
`launch_pad_us` of host-side launch latency is not charged (as triton.testing.do_bench's flush does);
the host wall-clock time of the bracket is kept too, as a cross-check. Repetition stops when the median's relative
standard error falls under the target or the budget runs out.
"""

from __future__ import annotations

import ctypes
import math
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable

import torch


@dataclass(frozen=True)
class TimingPolicy:
    warmup_calls: int = 5
    warmup_s: float = 0.3  # clocks idle low (345 MHz on an H200) until work arrives: warm up in time, not calls
    min_calls: int = 10
    max_calls: int = 400
    target_rse: float = 0.005
    budget_s: float = 15.0


@dataclass(frozen=True)
class TimingStats:
    median_ms: float
    p10_ms: float
    p90_ms: float
    mean_ms: float
    count: int
    rse: float  # relative standard error of the median
    host_median_ms: float
    stop_reason: str  # "converged", "budget" or "max_calls"

    def as_dict(self) -> dict:
        return asdict(self)


def median_rse(samples: list[float]) -> float:
    """Relative standard error of the median, from a robust spread (IQR/1.349) and n."""
    n = len(samples)
    if n < 4:
        return math.inf
    q = statistics.quantiles(samples, n=4)
    sigma = (q[2] - q[0]) / 1.349
    med = statistics.median(samples)
    return 1.2533 * sigma / math.sqrt(n) / med if med > 0 else math.inf


def summarise(device_ms: list[float], host_ms: list[float], stop_reason: str) -> TimingStats:
    deciles = statistics.quantiles(device_ms, n=10) if len(device_ms) >= 2 else [device_ms[0]] * 9
    return TimingStats(statistics.median(device_ms), deciles[0], deciles[-1], statistics.fmean(device_ms),
                       len(device_ms), median_rse(device_ms), statistics.median(host_ms), stop_reason)


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
    launch_pad_us = 200.0  # covers a Triton launch from Python (measured 40-85 us on an H100)

    def __init__(self, device: torch.device, l2_bytes: int):
        self.device = device
        self.flush_bytes = 2 * l2_bytes
        self._flush = torch.empty(self.flush_bytes // 4, dtype=torch.int32, device=device)
        self._cudart = _loaded_cudart()
        self._reset_persisting = getattr(self._cudart, "cudaCtxResetPersistingL2Cache", None)
        self._Event = torch.cuda.Event  # captured before any solution code runs
        self._synchronize = torch.cuda.synchronize
        self._perf_counter = time.perf_counter
        self._fill_value = 0
        clock_khz = getattr(torch.cuda.get_device_properties(device), "clock_rate", 0) or 1_980_000
        self._pad_cycles = int(self.launch_pad_us * clock_khz / 1e3)

    def describe(self) -> dict[str, Any]:
        return {"timer": self.name, "l2_flush_bytes": self.flush_bytes, "launch_pad_us": self.launch_pad_us,
                "persisting_l2_reset": "cudaCtxResetPersistingL2Cache" if self._reset_persisting
                else "not verified (CUDA runtime symbol not found)"}

    def before_call(self) -> None:
        if self._reset_persisting is not None:
            self._reset_persisting()
        self._fill_value ^= 1  # a different value each time, so the write cannot be elided
        self._flush.fill_(self._fill_value)
        torch.cuda._sleep(self._pad_cycles)

    def time_call(self, fn: Callable[[], Any]) -> tuple[Any, float, float]:
        start, end = self._Event(enable_timing=True), self._Event(enable_timing=True)
        host_start = self._perf_counter()
        start.record()
        out = fn()
        end.record()
        self._synchronize()
        host_ms = (self._perf_counter() - host_start) * 1e3
        return out, start.elapsed_time(end), host_ms


class CpuTimer:
    name = "host-perf-counter (CPU profile)"

    def __init__(self):
        self._perf_counter = time.perf_counter

    def describe(self) -> dict[str, Any]:
        return {"timer": self.name, "l2_flush_bytes": 0, "persisting_l2_reset": "not applicable (CPU profile)"}

    def before_call(self) -> None:
        pass

    def time_call(self, fn: Callable[[], Any]) -> tuple[Any, float, float]:
        start = self._perf_counter()
        out = fn()
        elapsed_ms = (self._perf_counter() - start) * 1e3
        return out, elapsed_ms, elapsed_ms


def repeat_until_stable(one_call: Callable[[], tuple[float, float]], policy: TimingPolicy) -> TimingStats:
    """Call `one_call` (returns device_ms, host_ms) until the median is stable or the budget is spent."""
    device_ms: list[float] = []
    host_ms: list[float] = []
    started = time.perf_counter()
    stop_reason = "max_calls"
    while len(device_ms) < policy.max_calls:
        d, h = one_call()
        device_ms.append(d)
        host_ms.append(h)
        if len(device_ms) >= policy.min_calls:
            if median_rse(device_ms) <= policy.target_rse:
                stop_reason = "converged"
                break
            if time.perf_counter() - started >= policy.budget_s:
                stop_reason = "budget"
                break
    return summarise(device_ms, host_ms, stop_reason)
