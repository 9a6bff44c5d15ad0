"""The CPU profile says what it is: host fractions, readable throughputs, Triton's interpreter, and ceilings
that are the best seen on the machine, so that two CPU runs compare (issue 36)."""

import json
from pathlib import Path

from scoring.hardware import cpu_peak_cache_path, measure_cpu_peak
from scoring.report import progress_line, summary_table

REPO = Path(__file__).resolve().parents[2]


def _write_cache(rates: dict) -> Path:
    import torch

    cache = cpu_peak_cache_path(torch.__version__)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(dict(rates, measured_utc="2026-11-27T00:00:00Z")))
    return cache


def test_the_cpu_ceilings_are_the_best_seen_on_the_machine_and_never_fall(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = measure_cpu_peak()
    cache = next((tmp_path / "ceiling").glob("cpu_peak-*.json"))
    assert json.loads(cache.read_text())["copy_gbps"] == first.bandwidth_gbps
    # A ceiling seen before that this machine cannot reach now (it was idle then): kept, so fractions compare
    _write_cache({"matmul_tflops": 1e6, "copy_gbps": 1e9})
    kept = measure_cpu_peak()
    assert (kept.tflops["fp32"], kept.bandwidth_gbps) == (1e6, 1e9)
    assert "since 2026-11-27T00:00:00Z" in kept.source and "this run measured" in kept.source


def test_a_ceiling_measured_too_low_rises_with_the_next_run(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = _write_cache({"matmul_tflops": 1e-12, "copy_gbps": 1e-9})  # as if measured on a saturated machine
    peak = measure_cpu_peak()
    assert peak.bandwidth_gbps > 1e-9 and json.loads(cache.read_text())["copy_gbps"] == peak.bandwidth_gbps


def test_an_unreadable_cache_is_measured_again_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = _write_cache({"matmul_tflops": float("nan"), "copy_gbps": -1})
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
