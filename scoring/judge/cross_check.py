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

Why these limits (results/judge/README.md, H100 SXM, 2026-11-27 13:55-14:08): with the judge's wait on DONE
queued before the gate opens (no host in the span) and the worker's persisting-L2 reset moved after its call,
41 honest house-kernel shapes of softmax (twice), moe, fp8 and paged attention left a median excess of at
most 10.5 us, except four: moe_swiglu's v2_lite_hot_expert (71 us on 705 us calls, in both runs of the day),
deepseek_v3_ep2_96e (44 us on 2.1 ms), softmax's huge_range_500000 in one of two runs (58 us on 94 us calls)
and fp8's odd_m_3000 (17 us on 155 us). The per-call gaps (`gpu_gaps_us`) show why: a low mode within +-5 us,
and runs of consecutive calls 58-95 us higher, source not found. The floor sits over that mode (150 us: 1.6x
the highest call seen in it); the share is for long calls, whose honest excess stayed under 2.1% from 2 ms up.
A flat 0.8x forger left 187-333 us on fp8's shapes of 0.9 ms and more, 95-150 us on its 0.47 ms shape. What
hides under the limit is the measured residual (docs/integrity.md): on calls under 0.3 ms the floor is most
of the call, and the only bound left there is the physical one (a fraction above 1.0 is refused, X12).

The host's view (polling GO and DONE; `gap_us_median`) is recorded beside it. It was bimodal while the judge's
gate timed out before the worker had queued its call (1 ms, scoring/judge/clock.py), and agreed with the GPU
span after; it is evidence, not the verdict.
"""

from __future__ import annotations

import statistics

GPU_GAP_LIMIT_US = 150.0
GPU_GAP_LIMIT_SHARE = 0.05


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
    gpu_gaps = clock.get("gpu_gaps_us") or []
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
    record["gpu_gaps_us"] = [round(gap, 1) for gap in gpu_gaps]  # every timed call: the verdict can be replayed
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
    calibrated_us = statistics.median(calibration.gpu_gaps_us)
    excess_us = statistics.median(gpu_gaps) - calibrated_us
    limit_us = detection_limit_us(median_ms)
    record.update(
        calibrated_gpu_gap_us=round(calibrated_us, 2),
        excess_us=round(excess_us, 2),
        detection_limit_us=round(limit_us, 2),
    )
    if excess_us > limit_us:  # one-sided: a worker that reports more time than it took only loses score
        record["outcome"] = (
            f"failed (X30: the worker reported {median_ms * 1e3:.1f} us per call, but the judge's "
            f"GPU clock saw {excess_us:.1f} us more per call than calibrated (limit {limit_us:.1f} us))"
        )
    else:
        record["outcome"] = "passed"
    return record["outcome"], record
