"""The GPU's state during each shape's timed calls (scoring/gpu_state.py): the window join, the summary and
the cases with nothing to read. NVML itself runs only on the device (tests/scoring/test_gpu.py)."""

import itertools
import time

from scoring.gpu_state import TIMED_WINDOW_KEY, GpuStateSampler, Reading, reason_names, summarise


def reading(at_s, sm=1980, mem=2619, temp=40, power=100.0, reasons=0):
    return Reading(at_s, sm, mem, temp, power, reasons)


def test_the_summary_gives_ranges_medians_and_every_reason_seen():
    readings = [
        reading(0.0, sm=1980, temp=40, power=90.0),
        reading(0.1, sm=1965, temp=42, power=300.0, reasons=0x4),
        reading(0.2, sm=1950, temp=41, power=110.0, reasons=0x20),
    ]
    summary = summarise(readings)
    assert summary["samples"] == 3
    assert summary["sm_clock_mhz"] == {"min": 1950, "median": 1965, "max": 1980}
    assert summary["temperature_c"] == {"min": 40, "median": 41, "max": 42}
    assert summary["power_w"]["median"] == 110.0 and summary["power_w"]["max"] == 300.0
    assert summary["clock_event_reasons"] == ["sw_power_cap", "sw_thermal_slowdown"]
    assert "memory_temperature_c" not in summary  # no reading had HBM's sensor


def test_the_memory_temperature_is_summarised_from_the_readings_that_have_it():
    readings = [reading(0.0), Reading(0.1, 1980, 2619, 41, 100.0, 0, 55), Reading(0.2, 1980, 2619, 42, 100.0, 0, 57)]
    assert summarise(readings)["memory_temperature_c"] == {"min": 55, "median": 56.0, "max": 57}


def test_a_reason_bit_nvml_adds_later_is_kept_unnamed():
    assert reason_names(0x1 | 0x800) == ["gpu_idle", "other_0x800"]
    assert reason_names(0) == []


def test_a_shape_gets_the_readings_taken_inside_its_timed_window_only():
    clock = itertools.count()
    sm_by_tick = {}

    def read():  # a stand-in for NVML: a clock that drops by 15 MHz per reading
        tick = next(clock)
        sm_by_tick[tick] = 1980 - 15 * tick
        return reading(time.monotonic(), sm=sm_by_tick[tick])

    with GpuStateSampler(read, interval_s=0.002) as sampler:
        time.sleep(0.05)
        start = time.monotonic()
        time.sleep(0.05)
        end = time.monotonic()
        time.sleep(0.05)
    (shape,) = sampler.attach([{"name": "a", TIMED_WINDOW_KEY: [start, end]}])
    assert TIMED_WINDOW_KEY not in shape
    state = shape["gpu_state"]
    inside = [r for r in sampler._readings if start <= r.at_s <= end]
    assert state["samples"] == len(inside) >= 2
    assert state["sm_clock_mhz"]["max"] == max(r.sm_clock_mhz for r in inside)
    assert state["sm_clock_mhz"]["max"] < 1980  # the readings before the window are left out
    assert state["sm_clock_mhz"]["min"] > min(r.sm_clock_mhz for r in sampler._readings)  # and those after


def test_a_window_without_readings_or_a_forged_window_says_why():
    with GpuStateSampler(lambda: reading(time.monotonic()), interval_s=0.5) as sampler:
        time.sleep(0.01)
    now = time.monotonic()
    empty, forged, reversed_, untimed = sampler.attach(
        [
            {"name": "empty", TIMED_WINDOW_KEY: [now + 10.0, now + 11.0]},
            {"name": "forged", TIMED_WINDOW_KEY: "soon"},
            {"name": "reversed", TIMED_WINDOW_KEY: [now, now - 1.0]},
            {"name": "untimed"},
        ]
    )
    assert "no reading within the 1.000 s" in empty["gpu_state"]["why_not"]
    assert "not two increasing monotonic stamps" in forged["gpu_state"]["why_not"]
    assert "not two increasing monotonic stamps" in reversed_["gpu_state"]["why_not"]
    assert untimed == {"name": "untimed"}


def test_a_reader_that_starts_failing_ends_sampling_and_says_so():
    calls = itertools.count()

    def read():
        if next(calls) >= 3:
            raise OSError("GPU is lost")
        return reading(time.monotonic())

    with GpuStateSampler(read, interval_s=0.001) as sampler:
        time.sleep(0.05)
    assert len(sampler._readings) == 3
    (shape,) = sampler.attach([{"name": "late", TIMED_WINDOW_KEY: [time.monotonic(), time.monotonic() + 1]}])
    assert shape["gpu_state"]["why_not"] == "NVML stopped answering: OSError: GPU is lost"


def test_nvml_missing_is_said_per_shape_and_the_cpu_profile_records_nothing():
    unreadable = GpuStateSampler(None, "NVML unavailable (NVML Shared Library Not Found)")
    (shape,) = unreadable.attach([{"name": "a", TIMED_WINDOW_KEY: [0.0, 1.0]}])
    assert shape["gpu_state"] == {"why_not": "NVML unavailable (NVML Shared Library Not Found)"}
    cpu = GpuStateSampler.for_device("cpu")
    with cpu:
        (shape,) = cpu.attach([{"name": "a", TIMED_WINDOW_KEY: [0.0, 1.0]}])
    assert shape == {"name": "a"}
