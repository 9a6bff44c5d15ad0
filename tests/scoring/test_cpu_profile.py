"""The CPU profile says what it is: host fractions, readable throughputs, Triton's interpreter, and ceilings
measured once per machine so that two CPU runs compare (issue 36)."""

import json
from pathlib import Path

from scoring.hardware import cpu_peak_cache_path, measure_cpu_peak
from scoring.report import progress_line, summary_table

REPO = Path(__file__).resolve().parents[2]


def test_the_cpu_ceilings_are_measured_once_then_read_from_the_machines_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = measure_cpu_peak()
    cache = next((tmp_path / "ceiling").glob("cpu_peak-*.json"))
    assert json.loads(cache.read_text())["copy_gbps"] == first.bandwidth_gbps
    second = measure_cpu_peak()
    assert (second.tflops, second.bandwidth_gbps) == (first.tflops, first.bandwidth_gbps)
    assert str(cache) in second.source and "delete it to measure again" in second.source


def test_an_unreadable_cache_is_measured_again_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    import torch

    cache = cpu_peak_cache_path(torch.__version__)
    cache.parent.mkdir(parents=True)
    cache.write_text('{"matmul_tflops": NaN, "copy_gbps": -1, "measured_utc": "x"}')
    peak = measure_cpu_peak()
    assert peak.bandwidth_gbps > 0 and json.loads(cache.read_text())["copy_gbps"] == peak.bandwidth_gbps


def _cpu_result() -> dict:
    """A committed GPU run dressed as a CPU-profile one: host timings are ~1e5x slower (results/cpu/ is not
    committed)."""
    path = sorted((REPO / "results" / "h100_sxm").glob("*fp8_gemm-house*.json"))[-1]
    result = json.loads(path.read_text())
    result["hardware"]["profile"] = "cpu"
    for shape in result["systems"][0]["shapes"]:
        for key in ("achieved_tflops", "achieved_gbps"):
            if isinstance(shape.get(key), (int, float)):
                shape[key] /= 1e5
    return result


def test_the_cpu_summary_says_host_fraction_and_names_the_interpreter():
    text = summary_table(_cpu_result())
    assert "host fraction (not a score)" in text and " score " not in text
    assert "Triton's interpreter" in text


def test_throughputs_of_host_timings_are_not_printed_as_zero():
    result = _cpu_result()
    shape = next(s for s in result["systems"][0]["shapes"] if s.get("fraction") is not None)
    assert 0 < shape["achieved_tflops"] < 0.05  # a host timing: below what one decimal shows
    assert f"{shape['achieved_tflops']:.4g}" in progress_line("solution", 0, 1, shape)
    row = next(line for line in summary_table(result).splitlines() if line.startswith(shape["name"]))
    assert f"{shape['achieved_tflops']:.4g}" in row
