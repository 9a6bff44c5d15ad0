"""X30 through the gate's timeout, against its calibration: every gate timed out, the call queued the moment GO
completes rather than after a sleep.

Red team round 8, against commit 4bb19ad (the timed-out regime calibrated, scoring/judge/link.py `calibrate`,
`Calibration.timed_out_gap_us`). Reasoned from the code; the lab's measurement of the regime is in
.scratch/redteam8.md where it was run, not in this file.

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

Closing it: calibrate the timed-out regime as a forger runs it (no sleep past the gate's timeout: poll GO
tightly from just before it, as this file does), so that its median is the regime's switches and nothing else, and
keep min() over that and the held gap; or take the timed-out span's start from the judge's own host, not its
after-GO event (the judge cannot see when the worker queued, so the idle is the worker's choice and must not be
what the calibration is made of). Round 7's other advice stands: a shape whose calls mostly timed out is judged
by its judged time over all calls and charged, never "passed" with nothing charged.
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
    # Reasoned (see the docstring): every gate times out, so no call is judged against the limit and nothing is
    # charged; each call scores max(0.6x its events, span - the held calibrated gap, which min() falls back to).
    # Passed whatever the gain: read timing.median_ms beside the house kernel's on the same card.
    "gpu": {
        "status": "passed",
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
