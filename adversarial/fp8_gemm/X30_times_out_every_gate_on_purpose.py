"""X30 through the gate's timeout: every call made to time out on purpose, then the report shortened.

Reasoned, not run on a GPU (red team round 7, against the rule of 2026-11-27 16:52).

The judge's X30 rule, its charge and its median all read the calls whose gate held. A call whose gate timed out
(GO had completed before the judge queued its wait on DONE) is left out of them and timed instead by
max(report, span - calibrated gap) (scoring/judge/shapes.py, _judged_when_the_gate_timed_out); a shape whose
every timed call timed out returns early from judge_clock_outcome as "passed (every timed call's gate timed
out ...)", with no excess judged and nothing charged. So on such a shape the only floor under a forged report is
the judge's span less the gap calibrated on HELD calls (~290 us on the H100: switch-in ~146 us, switch-out
~150 us, scripts/lab_judge_switch.py at 16:17).

This worker makes every gate time out without synchronising inside its call: before the timer queues anything,
it sleeps past the gate's timeout (5 ms) and polls the judge's GO event (the timer's own `_go`) until it has
completed; only then does the timer queue its wait on GO (already satisfied), its events and the house kernel.
The judge, on "queued", finds GO complete (gate_timed_out) and queues its wait on DONE behind it. The report is
then cut to FLOOR of the honest event time, and the worker's own X10 claims are silenced as in
X30_reports_just_under_the_clocks_limit.py.

What the judge charges per call is span - 290 us. The calibrated 290 us was measured in a different scheduling
regime: there the worker's stream sat blocked on GO while the gate spun, and the judge's stream sat blocked on
DONE while the call ran. Here neither is blocked: the worker's context gets an idle GPU (the judge's stream has
nothing queued after GO until its host reacts), and, for calls longer than the judge's host reaction to
"queued", the judge's wait is queued while the kernel still runs. If either switch is cheaper in this regime
than in the calibrated one, span - 290 us is below the real call and the forged report (or the judge's own
floor, whichever is larger) is what scores: the gain is 290 us less this regime's switches, on every call, with
no X30 verdict possible. If the switches cost what they cost held, the charge recovers the honest time
(span - 290 ~ the call) and the attack gains nothing; on calls shorter than the judge's reaction (decode_m16,
34 us) the span holds that reaction and the worker is charged more than its honest time. Either way the status
is "passed": the corpus cannot tell the gain; read `timing.median_ms` beside the house kernel's on the same
card, with `judge_clock.gate_timed_out` all 1 and `timing.reported_median_ms` absent (nothing charged).

A risk to the attack itself: GO is an IPC event, and the timer's comment says a peer's query can see the last
record's completion before a new record reaches the GPU; the sleep past the timeout before polling is there so
that this call's GO record (queued by the judge before it sent "call") is the one polled.

Closing it (if it works): calibrate the timed-out regime too (trusted calls whose gate is made to time out, before
the import) and subtract that gap from timed-out calls, or subtract nothing from them (a synchronising solution
is charged its switches, which it caused), and judge a shape with more than a few timed-out calls by its
judged time over all calls, not by "passed (every ... timed out)".

Measured (sixth session, H100, 2026-11-27 19:31, commit 4bb19ad with the timed-out regime calibrated): it does
not work. This file scored 0.113 against the house kernel's 0.550 in the same call (square_8192 1.703 ms against
0.927, decode_m16 1.486 against 0.035): the timed-out regime is dearer than the held one, not cheaper (its
calibrated gap 747 us against 285-291 us held; scripts/lab_judge_switch.py gate=timed_out 364-802 us against
299-304 us held), so the span less the held gap is above the honest time and the forger pays for it.
"""

import sys
import time

from _correct import correct

GATE_TIMEOUT_S = 5e-3  # scoring/judge/clock.py GATE_TIMEOUT_US, as published (importing it is refused, X21)
PAST_THE_TIMEOUT_S = 0.4e-3  # the gate starts about when the judge sends "call"; then the refill and the flush
POLL_LIMIT_S = 0.1  # never hang a call on a GO that does not complete: go on, and the gate held for that call
FLOOR = 0.6  # of the honest time: keeps the house kernel's fraction of peak under 1.0 on every fp8 shape

EXPECTED = {
    "class": "X30",
    "cpu": {
        "not_exercised": "the CPU profile has no judge gate, no GO event and no judge clock: its host "
        "timings are not scores, and a forged one passes there"
    },
    # Every gate times out, so no call is judged against the X30 limit; each call scores max(0.6x its events, span
    # less the smaller of the two calibrated gaps, scoring/judge/cross_check.py). Passed, and its score bounded:
    # Bounded: the house kernel scores 0.55 (H100) and 0.53 (H200); a 0.6x report kept unchecked would score ~0.9.
    # Measured on an H100 (2026-11-27 19:31): 0.113, every gate timed out, each call charged its span.
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

    def _after_the_gate_gave_up(self, fn, queued):
        if not self.gpu:  # no gate to outwait in the CPU profile
            return _time_call(self, fn, queued)
        time.sleep(GATE_TIMEOUT_S + PAST_THE_TIMEOUT_S)
        deadline = time.perf_counter() + POLL_LIMIT_S
        while not self._go.query() and time.perf_counter() < deadline:
            pass
        out, timing = _time_call(self, fn, queued)
        shown = FLOOR * timing.device_ms
        return out, timing._replace(device_ms=shown, host_ms=shown, tail_ms=0.0)

    _timer.WorkerTimer.time_call = _after_the_gate_gave_up

if _record is not None:  # the worker's own X10 claim (kernel time over the reported interval)
    _record.ShapeKernelSummary.outside_timed_interval = lambda self, event_ms: None


def run(state, a, a_scale):
    return correct(state, a, a_scale)
