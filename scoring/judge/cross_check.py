"""X30: the worker's reported times against the judge's own clock.

The judge's GPU span of a call (scoring/judge/clock.py) runs on its own stream, from a timing event right after
GO to one right after its stream waited on the worker's DONE: it contains the worker's call, two context
switches, and any work the worker's context ran before the GPU came back to the judge (work queued after DONE
included, X10). The gap, span minus the time the worker reports, was calibrated on trusted calls of the same
worker before the solution was imported (scoring/judge/link.py). A worker whose Python was rewritten to report
shorter times (a patched timer, a relayed result channel, a forged event, half the work queued after DONE)
leaves a gap that grows by what it took off. A shape fails when its median gap exceeds the calibrated one by
more than the larger of `GPU_GAP_LIMIT_US` and `GPU_GAP_LIMIT_SHARE` of its median time: that is the detection
limit, stated in every result.

Why these limits (results/judge/README.md, H100 SXM, 2026-11-27). Once nothing of the judge's host was in the
span (its wait on DONE queued before the gate opens) and the worker's own GPU work was out of it (its
persisting-L2 reset after the call; its poisoning of free blocks between calls, whose fill had waited behind the
gate and made the "high mode" of 58-134 us seen until 16:24), the median excess of all 55 house-kernel shapes of
the seven problems lay between -4.9 and +4.8 us, on calls of 33 us to 4.7 ms, and no call whose gate held left
more than 6.3 us (16:34, scripts/device_judge_confirm.sh c4). The floor, 20 us, is four times the widest
shape (up to 10.5 us once the calibration's own spread across judge processes, 284-292 us, is counted); the share,
1%, is for long calls (47 us on kda's 4.7 ms). Calls whose gate timed out (a solution that
synchronises inside its call) are not judged here: the judge times them by its span less the gap calibrated in
their own regime (shapes.py; scoring/judge/link.py). What hides
under the limit is charged back (CHARGE_TOLERANCE_US): what a forger keeps is at most 12 us a call.

The host's view (polling GO and DONE; `gap_us_median`) is recorded beside it. It was bimodal while the judge's
gate timed out before the worker had queued its call (1 ms, scoring/judge/clock.py), and agreed with the GPU
span after; it is evidence, not the verdict.
"""

from __future__ import annotations

import statistics

GPU_GAP_LIMIT_US = 20.0
GPU_GAP_LIMIT_SHARE = 0.01
# Under the limit, the shape's time is at least the judge's own (its span less the calibrated gap) less this:
# the honest spread. On the H100 (2026-11-27 16:34 and 16:52) honest shapes lay within +-5.1 us of the calibrated
# gap in the house runs, but the calibration itself moved 284-292 us from one judge process to the next, and an
# honest fp8 kernel under a low calibration showed 10.5 us (X30_signals_the_judge_..., 16:58); 6 us charged it.
CHARGE_TOLERANCE_US = 12.0


def detection_limit_us(median_ms: float) -> float:
    """The most a shape's median gap may exceed the calibrated one: max(GPU_GAP_LIMIT_US, GPU_GAP_LIMIT_SHARE of
    the reported median time)."""
    return max(GPU_GAP_LIMIT_US, GPU_GAP_LIMIT_SHARE * median_ms * 1e3)


def _median_and_p90(values: list[float]) -> tuple[float, float]:
    p90 = statistics.quantiles(values, n=10)[-1] if len(values) >= 2 else values[0]
    return round(statistics.median(values), 2), round(p90, 2)


def judge_clock_outcome(clock: dict, calibration, median_ms: float | None) -> tuple[str, dict]:
    """(outcome, record) for one shape's timed calls."""
    host = clock.get("host_ms") or []
    record: dict = {"host_ms_median": round(statistics.median(host), 4) if host else None}
    if median_ms is None:
        return "not verified (the shape was not timed)", record
    all_gaps = clock.get("gpu_gaps_us") or []
    timed_out = clock.get("gate_timed_out") or [0] * len(all_gaps)
    # Only calls whose gate held: the span of one whose gate timed out holds the host's reaction, and that call
    # was timed by the judge's span instead (scoring/judge/shapes.py, _judged_when_the_gate_timed_out).
    gpu_gaps = [gap for gap, out in zip(all_gaps, timed_out) if not out]
    if all_gaps and calibration.gpu_gaps_us and not gpu_gaps:
        record["gpu_gaps_us"] = [round(gap, 1) for gap in all_gaps]
        record["gate_timed_out"] = list(timed_out)
        record["outcome"] = (
            f"passed (every timed call's gate timed out, {len(all_gaps)} of {len(all_gaps)}: each was timed by "
            f"the judge's span less {calibration.timed_out_gap_us():.1f} us where longer than the worker's report)"
        )
        return record["outcome"], record
    if not gpu_gaps or not calibration.gpu_gaps_us:
        why = calibration.detail or "no judge clock (CPU profile)"
        record["outcome"] = f"not verified ({why})"
        return record["outcome"], record
    if clock.get("gaps_us"):
        record.update(
            span_ms_median=round(statistics.median(clock["spans_ms"]), 4),
            gap_us_median=round(statistics.median(clock["gaps_us"]), 2),
            calibrated_gap_us=round(calibration.null_gap_us(), 2),
            back_to_the_judge_us_median=round(statistics.median(clock["back_us"]), 2),
        )
    record["gpu_gap_us_median"], record["gpu_gap_us_p90"] = _median_and_p90(gpu_gaps)
    record["gpu_gaps_us"] = [round(gap, 1) for gap in all_gaps]  # every timed call: the verdict can be replayed
    # Recorded, not yet judged (red team round 6, reasoned): GO to the end of the judge's copy of the output (work
    # the worker launched after the span's end and before the copy shows here, with the copy's own time), and the
    # gate's opening to GO (work the worker ran once the inputs existed shows here, with the refill and flush).
    if clock.get("snapshot_gaps_us"):
        record["snapshot_gap_us_median"], record["snapshot_gap_us_p90"] = _median_and_p90(clock["snapshot_gaps_us"])
    # Per timed call, beside gpu_gaps_us (evidence for the high mode's source, not judged): did the gate time out,
    # were CUPTI's kernel activity records on?
    for key in ("gate_timed_out", "kernels_recorded"):
        if clock.get(key):
            record[key] = list(clock[key])
    if clock.get("refill_flush_us"):
        record["refill_flush_us_median"], record["refill_flush_us_p90"] = _median_and_p90(clock["refill_flush_us"])
    calibrated_us = calibration.gpu_gap_us()
    excess_us = statistics.median(gpu_gaps) - calibrated_us
    limit_us = detection_limit_us(median_ms)
    record.update(
        calibrated_gpu_gap_us=round(calibrated_us, 2),
        excess_us=round(excess_us, 2),
        detection_limit_us=round(limit_us, 2),
    )
    # The worker's report of each timed call, in the order of gpu_gaps_us (both written per timed call).
    reported = list((clock.get("timed") or {}).values())
    held_reported = [ms for ms, out in zip(reported, timed_out) if not out]
    if len(held_reported) == len(gpu_gaps):
        # The judge's own time per held call: what the worker reported plus the gap beyond the calibrated one.
        judged_ms = statistics.median(ms + (gap - calibrated_us) / 1e3 for ms, gap in zip(held_reported, gpu_gaps))
        record["judged_median_ms"] = round(judged_ms, 6)
        floor_ms = judged_ms - CHARGE_TOLERANCE_US / 1e3
        if median_ms < floor_ms:
            record["charged_us"] = round((floor_ms - median_ms) * 1e3, 2)
    if excess_us > limit_us:  # one-sided: a worker that reports more time than it took only loses score
        record["outcome"] = (
            f"failed (X30: the worker reported {median_ms * 1e3:.1f} us per call, but the judge's "
            f"GPU clock saw {excess_us:.1f} us more per call than calibrated (limit {limit_us:.1f} us))"
        )
    else:
        record["outcome"] = "passed"
    return record["outcome"], record


def judged_when_the_gate_timed_out(timing, reading, calibration):
    """A call whose gate opened on its own timeout (the solution synchronised inside its call, or its host took
    longer than the timeout to queue it) is timed by the judge's span less the gap calibrated for that regime
    (Calibration.timed_out_gap_us), where that is longer than the worker's report (a CallTiming; `reading` is
    the judge's ClockReading of the call). The judge queued its wait on DONE only once the worker said "queued",
    so the span bounds the call from above but may hold the host's reaction, and the X30 cross-check (over the
    calls whose gate held) cannot tell that from a forged report. A synchronising call is charged the host round
    trip it makes; a forger gains nothing by making its gate time out (red team round 7: with the held gap
    subtracted, a regime whose switches cost less would have hidden the difference)."""
    if not reading.gate_timed_out or not calibration.gpu_gaps_us:
        return timing
    judged_ms = reading.gpu_span_ms - calibration.timed_out_gap_us() / 1e3
    return timing._replace(device_ms=max(timing.device_ms, judged_ms))
