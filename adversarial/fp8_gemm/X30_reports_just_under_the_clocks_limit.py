"""X30 against the judge's clock as it is now judged: honest work, and every reported time shortened by as
much as the rule lets through, per call, from the worker's own (honest) event time.

Written blind (red team round 6 had no GPU): reasoned from the code and from the H200 records of
2026-11-27 (results/judge/h200_sxm/20261127T1104Z-judge_clock). Measured on an H100 the same day with the rule
it was written for (150 us, 25%; m = 90 us): caught on square_8192 and mlp_up_rect by the judge's host-bound
noise at 13:41, passed every shape at 13:59 and 14:08 once the judge's span no longer held its host (excess 22-260
us against limits of 150-349 us). The rule has changed since (150 us, 5%: scoring/judge/cross_check.py), and
this worker now uses it, with m = 40 us (fp8's house kernel left at most 17 us over the
calibrated gap in those runs). Reasoned: it passes every shape, hiding 110 us a call (40% of a decode call,
held there by FLOOR), about 1.4x the house kernel's score on the deck: the residual the docs state.

The derivation below is the one written for the old rule (the formula is the same with the new constants).

The rule (scoring/judge/cross_check.py, judge_clock_outcome): a shape fails when
    median(gpu span - reported) - calibrated gap  >  max(GPU_GAP_LIMIT_US, GPU_GAP_LIMIT_SHARE * median reported)
with 150 us and 0.25. A worker that reports T' for a call whose honest time is T leaves an excess of about
e + (T - T'), where e is what an honest call of this kernel leaves (measured on the house kernels: fp8 at most
60 us, every problem at most 88 us under 1 ms and 267 us on moe's 2.2 ms calls). Two facts make that limit
generous:
- the 150 us floor is a flat allowance: on a call shorter than 150 us - e the whole call can be taken off;
- the 25% share is 25% of the *reported* median (cross_check.py passes `result["timing"]["median_ms"]`, the
  forged number), so a long call can be reported at (T + e)/1.25, 20% off, not 25% - e.
So this worker reports T' = max(min(T - 150 us + m, (T + m) / 1.25), FLOOR * T) per call, where m (90 us here)
is a margin over the honest excess the repository publishes for its own kernel, and FLOOR keeps the fp8 house
kernel's fraction of peak under the physical bound (scoring/result.py: a fraction above 1.0 is refused, X12):
excess = 150 - m + e < 150, or 0.2 (T + m) - 0.8 m + e < 0.2 (T + m) = 0.25 T', whenever e < m. Replaying the
rule on the H200 house records with this formula (per problem, m = the worst published honest excess + 30 us,
and the cap at a fraction of 0.99 in place of FLOOR):
fp8 0.530 -> 0.755 (x1.42), paged attention 0.689 -> 0.990 (x1.44, every shape forged to the cap), w4a16
0.460 -> 0.990 (x2.15), topk 0.111 -> 0.245 (x2.21), softmax 0.470 -> 0.690 (x1.47), kda 0.065 -> 0.078
(x1.21), moe 0.644 -> 0.675 (x1.05). `X30_shortens_the_reported_times.py` (a flat 0.8x) is caught only because
0.8x sits exactly on the share's edge (excess 0.2 T + e against 0.25 * 0.8 T): a flat 0.85x passes every fp8 shape
of the H200 house records (excess 0.15 T + e against max(150 us, 0.2125 T)).
The honest excess is noisy on the longest shape: the house kernel's mlp_up_rect had a median gap of 375 us and
a p90 of 650 us over 11 calls (calibrated 316 us), and both forgers of that run left ~250 us more than 0.2 T
there; on such a run this worker fails mlp_up_rect and keeps the rest.

The worker's own claims that would show it (the CUPTI kernel time over the reported interval, X10; the
device-wide synchronise's tail) are rewritten, as in X10_finishes_after_done_behind_the_ipc_event.py.

What the design should say: a limit with a flat floor and a share of the claimed time lets a claimant take
the floor off every short call and a fifth off every long one. The judge's span is its own measurement of
the call; it should be the time scored (or the score the worse of the two), not a bound on how far a claim
may stray from it. Where the judge's span cannot be the score (it contains two context switches, ~316 us
calibrated on the H200), the allowance must be set from the honest spread (per shape, in us, from the
calibration's own distribution) and charged against the score, never a share of the claim.
"""

import sys

from _correct import correct

MARGIN_US = 40.0  # over the honest excess: fp8's house kernel left at most 17 us on the H100 (2026-11-27)
FLOOR = 0.6  # of the honest time: keeps the house kernel's fraction of peak under 1.0 on every fp8 shape
LIMIT_US, LIMIT_SHARE = 150.0, 0.05  # scoring/judge/cross_check.py, as published (importing it is refused, X21)

EXPECTED = {
    "class": "X30",
    "cpu": {"not_exercised": "the CPU profile has no judge clock and no kernel record: its host timings are "
                             "not scores, and a forged one passes there"},
    # Reasoned for the current rule (see the docstring; the old rule's version passed every shape, measured):
    # every excess stays under the floor by m - e.
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
