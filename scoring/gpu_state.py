"""The GPU's clocks, temperature and power while each shape's calls were timed, read from outside the worker.

Why: two runs of the same kernel on one H100 differed by about 1% on every shape at once while each run's
median was stable to 0.3%, the size of one or two of the SM clock's 15 MHz steps. The readings
cleared the clock (1980 MHz through every timed shape of those runs: docs/measurements.md, "Repeat
agreement"), and a result that records what its calls ran at lets any reader tell a slower kernel from a
slower GPU (the site's run page shows the SM clock per shape).

A thread of the scorer's own process (never the worker's: nothing runs beside the solution, so nothing it
can observe changes) reads NVML every SAMPLE_INTERVAL_S for the whole run. Each worker reports when its
timed calls began and ended on time.monotonic (CLOCK_MONOTONIC, one clock for every process of the machine),
and the run keeps, per shape, a summary of the readings taken in that window: `gpu_state`.
"""

from __future__ import annotations

import bisect
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Callable

SAMPLE_INTERVAL_S = 0.01
# The worker's key for its timed window (monotonic seconds); the scorer replaces it with `gpu_state`.
TIMED_WINDOW_KEY = "timed_window_monotonic_s"

# NVML's clock event reasons (nvmlClocksEventReason*), by bit: why the SM clock is below its maximum.
CLOCK_EVENT_REASONS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}


@dataclass(frozen=True)
class Reading:
    at_s: float  # time.monotonic()
    sm_clock_mhz: int
    mem_clock_mhz: int
    temperature_c: int
    power_w: float
    clock_event_reasons: int  # bit mask, CLOCK_EVENT_REASONS
    memory_temperature_c: int | None = None  # HBM's own sensor, where NVML has one (None: not reported)


def reason_names(mask: int) -> list[str]:
    named = [name for bit, name in CLOCK_EVENT_REASONS.items() if mask & bit]
    unnamed = mask & ~sum(CLOCK_EVENT_REASONS)
    return named + ([f"other_0x{unnamed:x}"] if unnamed else [])


def summarise(readings: list[Reading]) -> dict:
    """What a shape's timed calls ran at: the SM clock's range and median, the memory clock's, the
    temperature's range, the power's median and maximum, and every clock event reason seen."""

    def spread(values: list[float]) -> dict:
        return {"min": min(values), "median": statistics.median(values), "max": max(values)}

    reasons = 0
    for reading in readings:
        reasons |= reading.clock_event_reasons
    memory_temperatures = [r.memory_temperature_c for r in readings if r.memory_temperature_c is not None]
    return {
        "samples": len(readings),
        "sm_clock_mhz": spread([r.sm_clock_mhz for r in readings]),
        "mem_clock_mhz": spread([r.mem_clock_mhz for r in readings]),
        "temperature_c": spread([r.temperature_c for r in readings]),
        **({"memory_temperature_c": spread(memory_temperatures)} if memory_temperatures else {}),
        "power_w": spread([r.power_w for r in readings]),
        "clock_event_reasons": reason_names(reasons),
    }


def nvml_reader(device_index: int, device_uuid: str | None = None) -> Callable[[], Reading]:
    """A function that reads the GPU's state once; raises RuntimeError naming why NVML cannot be read. The GPU
    is found by its UUID where torch gave one (CUDA_VISIBLE_DEVICES renumbers devices, NVML does not)."""
    try:
        import pynvml
    except ImportError as exc:
        raise RuntimeError("nvidia-ml-py is not installed") from exc
    try:
        pynvml.nvmlInit()
        handle = (
            pynvml.nvmlDeviceGetHandleByUUID(device_uuid)
            if device_uuid
            else pynvml.nvmlDeviceGetHandleByIndex(device_index)
        )
        reasons = (
            getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
            or pynvml.nvmlDeviceGetCurrentClocksThrottleReasons
        )

        def memory_temperature_c() -> int | None:
            (field,) = pynvml.nvmlDeviceGetFieldValues(handle, [pynvml.NVML_FI_DEV_MEMORY_TEMP])
            return int(field.value.uiVal) if field.nvmlReturn == pynvml.NVML_SUCCESS else None

        def read() -> Reading:
            return Reading(
                time.monotonic(),
                pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
                pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM),
                pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU),
                pynvml.nvmlDeviceGetPowerUsage(handle) / 1e3,
                reasons(handle),
                memory_temperature_c(),
            )

        read()  # fails here, not in the thread, where a function is missing or the GPU refuses a query
        return read
    except pynvml.NVMLError as exc:
        raise RuntimeError(f"NVML unavailable ({exc})") from exc


def _stamp(reading: Reading) -> float:
    return reading.at_s


class GpuStateSampler:
    """Reads the GPU's state every `interval_s` on a thread of this process, from `start()` to `stop()`."""

    def __init__(
        self, read: Callable[[], Reading] | None, why_not: str | None = None, interval_s: float = SAMPLE_INTERVAL_S
    ):
        self._read = read
        self.why_not = why_not if read is None else None
        self._interval_s = interval_s
        self._readings: list[Reading] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_device(cls, device: str) -> "GpuStateSampler":
        """For a run on `device` ('cpu' or 'cuda:N'); the CPU profile records no GPU state at all."""
        if not device.startswith("cuda"):
            return cls(None)
        import torch

        index = int(device.split(":", 1)[1]) if ":" in device else 0
        uuid = getattr(torch.cuda.get_device_properties(index), "uuid", None)
        try:
            return cls(nvml_reader(index, f"GPU-{uuid}" if uuid else None))
        except RuntimeError as exc:
            return cls(None, str(exc))

    def start(self) -> "GpuStateSampler":
        if self._read is not None and self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="gpu-state-sampler", daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._readings.append(self._read())
            except Exception as exc:  # noqa: BLE001 -- a query that starts failing ends sampling, said per shape
                self.why_not = f"NVML stopped answering: {type(exc).__name__}: {exc}"
                return
            self._stop.wait(self._interval_s)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> "GpuStateSampler":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def during(self, start_s: float, end_s: float) -> dict:
        """The summary of the readings taken between two time.monotonic() stamps, or why there is none."""
        if self._read is None:
            return {"why_not": self.why_not or "not sampled"}
        readings = self._readings[:]  # the thread only appends: a slice is a consistent prefix
        first = bisect.bisect_left(readings, start_s, key=_stamp)
        inside = readings[first : bisect.bisect_right(readings, end_s, lo=first, key=_stamp)]
        if not inside:
            return {"why_not": self.why_not or f"no reading within the {end_s - start_s:.3f} s of timed calls"}
        return summarise(inside)

    def attach(self, shapes: list[dict]) -> list[dict]:
        """Each shape result with its worker's timed window replaced by `gpu_state` (shapes not timed, and
        every shape of the CPU profile: the window dropped, nothing added).
        A window that is not two increasing numbers (the worker's message is the solution's to forge) gets
        a `why_not` instead of readings."""
        attached = []
        for shape in shapes:
            window = shape.get(TIMED_WINDOW_KEY)
            shape = {k: v for k, v in shape.items() if k != TIMED_WINDOW_KEY}
            if window is not None and (self._read is not None or self.why_not):
                if (
                    isinstance(window, list)
                    and len(window) == 2
                    and all(isinstance(t, float) for t in window)
                    and window[0] <= window[1]
                ):
                    shape["gpu_state"] = self.during(window[0], window[1])
                else:
                    shape["gpu_state"] = {
                        "why_not": f"the worker's timed window is not two increasing monotonic stamps: {window!r:.60}"
                    }
            attached.append(shape)
        return attached


NOT_SAMPLED = GpuStateSampler(None)  # a system scored outside a run's sampler: its timed windows are dropped
