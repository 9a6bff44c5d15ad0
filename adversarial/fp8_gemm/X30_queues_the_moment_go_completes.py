"""X30 through the gate's timeout, against its calibration: every gate timed out, the call queued the moment GO
completes rather than after a sleep.

Red team round 8, against commit 4bb19ad (the timed-out regime calibrated, scoring/judge/link.py `calibrate`,
`Calibration.timed_out_gap_us`). Written from the code, then run once on an H100 (2026-11-27 19:51, shapes=visible
lines=none budget_s=3, the house kernel and round 7's file in the same call): it LOSES, see "Measured" below. Kept
as the sharpest form of the timed-out attack and as evidence that the new calibration never takes effect.

A call whose gate timed out is timed by max(report, span - g), g = min(held calibrated gap, timed-out calibrated
gap) (scoring/judge/cross_check.py, judged_when_the_gate_timed_out); a shape whose every timed call timed out is
"passed (every timed call's gate timed out ...)", with no excess judged and nothing charged. The timed-out gap is
calibrated on trusted calls that sleep GATE_TIMEOUT_US + OUTWAIT_PAST_THE_GATE_S (5.4 ms) from the moment the
worker reads the order, then poll GO and queue (scoring/worker/timer.py, calibration_call). The gate's 5 ms runs
from the gate kernel's start, which is before the order is sent; the refill (none in calibration) and the 2x-L2
flush (~70 us on the H100's 50 MB) follow; so GO completes ~5.07 ms after the gate starts and the trusted call is
queued ~5.4-5.5 ms after it (time.sleep overshoots too): the judge's span, which starts at its timing event right
after GO, holds ~0.3-0.4 ms of an idle GPU before the call is even queued. The calibrated timed-out gap is then
that idle plus the regime's switches, always above the held gap (~290 us), and min() returns the held gap: on the
GPU the new calibration is a no-op, and the judge subtracts exactly what it subtracted before round 7's fix.

This worker leaves out the idle: it sleeps 4.8 ms (short of the gate's timeout, which started before the worker
read "call"), then polls the judge's GO event (the timer's own `_go`) in a tight loop and, the moment it has
completed, lets the timer queue its wait on GO (satisfied), its events and the house kernel, then cuts its report
to FLOOR of the honest event time and silences its own X10 claims. Its span is a few microseconds of host poll and
launch, the switch into its context on a GPU whose judge stream has nothing queued (not a stream blocked on GO,
as held), the call, and the switch back. The judge charges span - 290 us. If this regime's two switches cost less
than the held ones (round 7's open question: here no stream of either context sits blocked on the other's event
when the call is submitted), the difference is kept on every call, with no X30 verdict possible; the calibration
meant to catch exactly that measures the same regime plus 0.3-0.4 ms of idle, so it cannot.

What the judge would see: every shape "passed", `judge_clock.gate_timed_out` all 1, no `charged_us`,
`timing.median_ms` below the house kernel's on the same card by (290 us - this regime's switches - the poll) if
the switches are cheaper, and `judge_clock_calibration.timed_out_gpu_gap_us_median` in the timer record well above
its `gpu_gap_us_median` (that is the tell that the calibration fell back). On calls shorter than the judge's
reaction to "queued" (decode_m16, 34 us) the span holds that reaction instead of the switch-out.

Measured (H100, 19:51; results in the red team's notes, not committed): the calibration gave held 289.7-290.1 us
and timed-out 668.5-791.6 us (12 of 12 trusted calls timed out), so timed_out_gap_us = the held gap in every judge
process: the fix is a no-op, as reasoned. But the regime is dearer, not cheaper: scripts/lab_judge_switch.py
gate=held,timed_out gave held gaps of 298.7/298.8 us (in 145.5, out 150) and timed-out gaps of 535.0 us (sleep:100,
the judge's wait queued after DONE) and 364.6 us (sleep:1000: in 218.7, out 142.3); the switch-out is the held one,
and the switch-in (GO to the worker's first stamp, the lab's poll and stamp launch in it) shows no cheaper switch:
the timed-out call adds its host's poll and launches after GO to a switch no cheaper than held. This file scored, per shape median against the house kernel's in the same call: square_8192 1.047 vs
0.920 ms, k_unaligned_6000 0.604 vs 0.476, decode_m16 0.401 vs 0.035, mlp_up_rect 1.750 vs 1.623 (round 7's file:
1.041, 0.864, 1.069, 2.156). Every shape "passed", every gate timed out, nothing charged: the forger pays the span.

What still deserves closing: the calibration the fix relies on cannot work (it measures the trusted call's sleep past
the gate, ~0.3-0.5 ms of idle GPU, not the regime); it is the regime's own cost that protects, on this GPU. If a
GPU or driver ever makes a context switch onto an idle GPU cheaper than one onto a stream blocked on an event, this
file is the case that would show it (its medians below the house kernel's). To make the calibration mean what it
says: sleep to just short of the gate's timeout and poll GO tightly (as this file does), so the calibrated median is
the regime's switches and nothing else, and keep min(); and judge a shape whose calls mostly timed out by its
judged time over all calls (round 7's advice), never "passed" with nothing charged.

Closed as advised (sixth session): the trusted timed-out call sleeps to 0.3 ms short of the gate's timeout and then
polls GO (scoring/worker/timer.py calibration_call, scoring/judge/link.py POLL_GO_BEFORE_THE_TIMEOUT_S). Each
timed-out call was already scored by its judged time (max(report, span - gap)) before the shape's median, so its
"passed (every timed call's gate timed out ...)" is the X30 verdict only, never an uncharged time; the corpus now
bounds this file's score (fraction_at_most).
"""

import sys
import time

from _correct import correct

GATE_TIMEOUT_S = 5e-3  # scoring/judge/clock.py GATE_TIMEOUT_US, as published (importing it is refused, X21)
WAKE_BEFORE_S = 0.2e-3  # wake before GO can complete: the gate started before the worker read "call"
POLL_LIMIT_S = 0.1  # never hang a call on a GO that does not complete: go on, and the gate held for that call
FLOOR = 0.6  # of the honest time: keeps the house kernel's fraction of peak under 1.0 on every fp8 shape

EXPECTED = {
    "class": "X30",
    "cpu": {
        "not_exercised": "the CPU profile has no judge gate, no GO event and no judge clock: its host "
        "timings are not scores, and a forged one passes there"
    },
    # Every gate times out, so no call is judged against the limit and nothing is charged; each call scores
    # max(0.6x its events, span - the held calibrated gap, which min() falls back to). Passed whatever the gain:
    # read timing.median_ms beside the house kernel's on the same card (H100, 19:51: above it on every shape).
    # Bounded: the house kernel scores 0.55 (H100) and 0.53 (H200); a 0.6x report kept unchecked would score ~0.9.
    "gpu": {
        "status": "passed",
        "fraction_at_most": 0.6,
        "shapes": {
            "square_8192": "passed",
            "k_unaligned_6000": "passed",
            "decode_m16": "passed",
            "mlp_up_rect": "passed",
        },
    },
}

_timer = sys.modules.get("scoring.worker.timer")
_record = sys.modules.get("scoring.kernel_record")

if _timer is not None:
    _time_call = _timer.WorkerTimer.time_call

    def _the_moment_go_completes(self, fn, queued):
        if not self.gpu:  # no gate to outwait in the CPU profile
            return _time_call(self, fn, queued)
        time.sleep(GATE_TIMEOUT_S - WAKE_BEFORE_S)
        deadline = time.perf_counter() + POLL_LIMIT_S
        while not self._go.query() and time.perf_counter() < deadline:
            pass
        out, timing = _time_call(self, fn, queued)
        shown = FLOOR * timing.device_ms
        return out, timing._replace(device_ms=shown, host_ms=shown, tail_ms=0.0)

    _timer.WorkerTimer.time_call = _the_moment_go_completes

if _record is not None:  # the worker's own X10 claim (kernel time over the reported interval)
    _record.ShapeKernelSummary.outside_timed_interval = lambda self, event_ms: None


def run(state, a, a_scale):
    return correct(state, a, a_scale)
