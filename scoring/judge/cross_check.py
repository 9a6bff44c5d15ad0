"""X30: the worker's reported times against the judge's own clock.

The judge's span of a call (scoring/judge/clock.py) contains the worker's call and two context switches;
the gap, span minus the time the worker reports, was calibrated on trusted calls of the same worker before
the solution was imported (scoring/judge/link.py). A worker whose Python was rewritten to report shorter
times (a patched timer, a relayed result channel, a forged event) leaves a gap that grows by what it took
off. A shape fails when its median gap exceeds the calibrated one by more than the larger of
`GAP_LIMIT_US` and `GAP_LIMIT_SHARE` of its median time: that is the detection limit, stated in every
result. Measured on an H100 (scripts/probe_judge_ipc.py): the calibrated gap was 297 us, steady to
+-2 us over 40 calls, and grew by ~2% of the call's length on longer calls; a worker reporting 0.8x its
event time left +36 us on a 178 us call and +5 us on a 28 us call.
"""

from __future__ import annotations

import statistics

GAP_LIMIT_US = 10.0
GAP_LIMIT_SHARE = 0.05
# Not yet a verdict: on the H100, under real kernels, the judge's host view of the worker's IPC events
# disagreed with the worker's own events in both directions on honest house kernels (moe_swiglu: the span
# 2.1 ms shorter than the call; softmax: 85 us longer than calibrated), so a gap beyond the limit is
# recorded as "not verified (would flag ...)" and fails nothing until the clock is made reliable
# (docs/integrity.md, "What remains").
JUDGED = False


def judge_clock_outcome(clock: dict, calibration, median_ms: float | None) -> tuple[str, dict]:
    """(outcome, record) for one shape's timed calls."""
    host = clock.get("host_ms") or []
    record: dict = {"host_ms_median": round(statistics.median(host), 4) if host else None}
    gaps = clock.get("gaps_us") or []
    if median_ms is None:
        return "not verified (the shape was not timed)", record
    if not gaps:
        why = calibration.detail or "no judge clock (CPU profile)"
        record["outcome"] = f"not verified ({why})"
        return record["outcome"], record
    if not calibration.ordered:
        record["outcome"] = f"not verified ({calibration.detail})"
        return record["outcome"], record
    null_gap_us = calibration.null_gap_us()
    gap_us = statistics.median(gaps)
    excess_us = gap_us - null_gap_us
    limit_us = max(GAP_LIMIT_US, GAP_LIMIT_SHARE * median_ms * 1e3)
    record.update(span_ms_median=round(statistics.median(clock["spans_ms"]), 4), gap_us_median=round(gap_us, 2),
                  calibrated_gap_us=round(null_gap_us, 2), excess_us=round(excess_us, 2),
                  detection_limit_us=round(limit_us, 2),
                  back_to_the_judge_us_median=round(statistics.median(clock["back_us"]), 2) if clock.get("back_us")
                  else None)
    for key in ("gpu_gaps_us", "snapshot_gaps_us"):  # the judge's GPU-side clock, recorded for its verdict's rule
        if clock.get(key):
            record[f"{key[:-3]}_us_median"] = round(statistics.median(clock[key]), 2)
            record[f"{key[:-3]}_us_p90"] = round(statistics.quantiles(clock[key], n=10)[-1], 2) \
                if len(clock[key]) >= 2 else round(clock[key][0], 2)
    if calibration.gpu_gaps_us:
        record["calibrated_gpu_gap_us"] = round(statistics.median(calibration.gpu_gaps_us), 2)
    if abs(excess_us) > limit_us:
        finding = (f"X30: the worker reported {median_ms * 1e3:.1f} us per call, but the judge's clock saw "
                   f"{excess_us:.1f} us more per call than the calibrated switching cost (limit {limit_us:.1f} us)")
        record["outcome"] = f"failed ({finding})" if JUDGED else \
            f"not verified (the judge's clock is recorded, not yet judged; it would say: {finding})"
    else:
        record["outcome"] = "passed" if JUDGED else "not verified (the judge's clock is recorded, not yet judged)"
    return record["outcome"], record
