"""X30 against the judge's clock as it is now judged: honest work, and every reported time shortened by as
much as the rule lets through, per call, from the worker's own (honest) event time.

The rule (scoring/judge/cross_check.py, judge_clock_outcome), over the calls whose gate held: a shape fails when
    median(gpu span - reported) - calibrated gap  >  max(GPU_GAP_LIMIT_US, GPU_GAP_LIMIT_SHARE * median reported)
and, under that limit, its time is raised to the judge's own (span less the calibrated gap) less
CHARGE_TOLERANCE_US. A worker that reports T' for a call of honest time T leaves an excess of about e + (T - T'),
e being what an honest call leaves (within +-5 us on every house shape, H100 2026-11-27 16:34). This worker
reports T' = max(min(T - LIMIT_US + m, (T + m) / (1 + LIMIT_SHARE)), FLOOR * T) with m = 12 us: excess under the
limit on every shape, and the charge takes back all but CHARGE_TOLERANCE_US of it. What it keeps is the
residual the docs state: up to 12 us a call (a third of fp8's 34 us decode_m16, 2.5% of its 0.47 ms shape).

History: written blind by red team round 6 for the rule of the day (max(150 us, 25%), m = 90 us) it passed every
fp8 shape on an H100 (13:59, 14:08), about 1.4x the house kernel's score; its advice, "the allowance must be set
from the honest spread and charged against the score, never a share of the claim", is the charge above.

The worker's own claims that would show it (the CUPTI kernel time over the reported interval, X10; the
device-wide synchronise's tail) are rewritten, as in X10_finishes_after_done_behind_the_ipc_event.py.
"""

import sys

from _correct import correct

MARGIN_US = 12.0  # over the honest excess: every house shape within +-5 us on the H100 (2026-11-27 16:34)
FLOOR = 0.6  # of the honest time: keeps the house kernel's fraction of peak under 1.0 on every fp8 shape
LIMIT_US, LIMIT_SHARE = 20.0, 0.01  # scoring/judge/cross_check.py, as published (importing it is refused, X21)

EXPECTED = {
    "class": "X30",
    "cpu": {"not_exercised": "the CPU profile has no judge clock and no kernel record: its host timings are "
                             "not scores, and a forged one passes there"},
    # Reasoned for the current rule (see the docstring): every excess stays under the floor by m - e, and the
    # shape's time is charged back to within CHARGE_TOLERANCE_US of the judge's.
    "gpu": {"status": "passed",
            "shapes": {"square_8192": "passed", "k_unaligned_6000": "passed", "decode_m16": "passed",
                       "mlp_up_rect": "passed"}},
}


def reported_ms(honest_ms: float) -> float:
    """The shortest time the judge's rule lets through for a call of `honest_ms` (see the docstring)."""
    t_us = honest_ms * 1e3
    under_the_floor = t_us - LIMIT_US + MARGIN_US
    under_the_share = (t_us + MARGIN_US) / (1.0 + LIMIT_SHARE)
    return max(min(under_the_floor, under_the_share), FLOOR * t_us, 0.0) / 1e3


_timer = sys.modules.get("scoring.worker.timer")
_record = sys.modules.get("scoring.kernel_record")

if _timer is not None:
    _time_call = _timer.WorkerTimer.time_call

    def _just_under_the_limit(self, fn, queued):
        out, timing = _time_call(self, fn, queued)
        if not self.gpu:  # nothing to forge against in the CPU profile
            return out, timing
        shown = reported_ms(timing.device_ms)
        return out, timing._replace(device_ms=shown, host_ms=shown, tail_ms=0.0)

    _timer.WorkerTimer.time_call = _just_under_the_limit

if _record is not None:  # the worker's own X10 claim (kernel time over the reported interval)
    _record.ShapeKernelSummary.outside_timed_interval = lambda self, event_ms: None


def run(state, a, a_scale):
    return correct(state, a, a_scale)
