"""X30/X10 against the judge's GPU clock: DONE recorded right behind GO, the whole product computed after the
judge's second timing event and before its snapshot, and any time reported.

Written blind (red team round 6 had no GPU): reasoned from the code and the H200 records of 2026-11-27.
Measured on an H100 the same day (results/judge/README.md): it loses the race on every shape. Against the
design it was written for (13:37), square_8192, k_unaligned_6000 and decode_m16 were incorrect (the copy read
the poisoned output); against the design that followed its own advice below (13:55: the judge queues the wait
on DONE, `_back`, the copy and `_snapped` back to back before opening its gate, no host step between them),
all four shapes were incorrect (NaN/Inf in every element: the copy ran before the deferred product). The
docstring below is the reasoning as written; its "what the design should say" is what the judge does now.

What the judge judges (scoring/judge/clock.py, scoring/judge/link.py `call`, scoring/judge/cross_check.py):
the span from `_after_go` (its stream, right after GO) to `_back` (its stream, right after a wait on the
worker's DONE, queued by `back_to_the_judge` once its host has *seen* DONE complete). The snapshot of the output
(`opener.open(...).clone()` and `_snapped`) is queued only after the host has seen `_back` complete, then
`gpu_span_ms()`, then `OutputOpener.open`: 150-200 us of GPU time after `_back` on a tiny output (H200 snapshot
gap minus gpu gap on decode_m16: 477 - 330 us in the X10 run, 541 - 337 us for the house kernel). `snapshot_gaps_us` is recorded and never judged (cross_check.py judges
`gpu_gaps` only). So GPU work that starts after `_back` ran and ends before the clone ran is in the bytes the
judge checks and in no span it judges.

The worker holds DONE (timer._done, found through the timer class it patches) and decides when it is recorded:
1. its patched `time_call` waits on GO, records DONE at once, and sends "queued" with an output that is
   allocated but not yet computed (run() defers the kernel);
2. the judge opens its gate: GO, then DONE, complete within one context switch (~150 us, the calibration's
   null call); the judge's host sees DONE and queues its wait and `_back` within a few tens of us, and `_back`
   runs on the next switch to the judge's context: its span is the calibrated null span;
3. the worker's host, polling the same DONE, waits WAIT_AFTER_DONE_US more (the judge's `_back` is queued by
   then), launches the product into the output, and then (optional, STARVE) wakes CPU-bound children for a
   few ms so that the judge's host, which still has ~140 us of Python to run before it queues the clone, runs
   it slower: the clone is queued while the worker's context is computing, and the GPU does not switch
   contexts for it before the worker's context idles or its time slice ends. The H200 records say how long
   that is at least: X10_finishes_after_done_behind_the_ipc_event's late half (~460 us on square_8192, ~810 us
   on mlp_up_rect) held the judge's pending `_back` until it had finished (back_to_the_judge 639 and 1081 us).
4. it reports REPORTED_SHARE of its own event time (0.65: the house kernel's fraction of peak stays under 1.0 on
   every fp8 shape): the judged gap is the null span minus the report, an excess below zero; the rule is
   one-sided. Its CUPTI X10 claim and device-wide tail are rewritten as in X10_finishes_after_done_....

How it can fail, and what a GPU run must check: a launch that reaches the GPU before `_back` puts the product
inside that call's span (excess ~0.35 T: integrity if more than half the timed calls do it, since the verdict is
a median); a launch too late, or a time slice shorter than the product, lets the clone read the poisoned output
(incorrect). The run must report, per shape, judge_clock.gpu_gap_us_median against calibrated_gpu_gap_us (about
equal if it works) and snapshot_gap_us_median (the product shows there), and the statuses.

What the design should say: the clock must stop on the operation that takes the bytes it judges, queued with
the wait on DONE in one go (open the output's storage as soon as "queued" arrives, then queue wait, timing
event, copy and a timing event after the copy back to back, with no host step between them), and the span
judged must end after the copy (the copy's own time calibrated per output size). Then work the worker runs
after the clock stops is work whose result the judge never reads. The principle: a clock bound to an event the
claimant records measures the claimant's say-so; bind it to the judge's own read of the bytes it judges.

Other levers a GPU run could add if the race is lost too often (not built here): an output that is a view into a
fresh allocation each call (a new IPC handle, so the judge's OutputOpener runs cudaIpcOpenMemHandle between
`_back` and the clone, widening the window), and running the deferred product on only a little over half of the
calls (the verdict and the score are both medians: the rest may be honest).
"""

import os
import sys
import time

import torch

from _correct import correct
from _partial import house_launch

REPORTED_SHARE = 0.65
WAIT_AFTER_DONE_US = 120.0  # the judge's host queues `_back` within tens of us of seeing DONE (H200: 170 us to
#                             see it complete, a context switch included)
STARVE = True
STARVE_MIN_MS, STARVE_FACTOR = 2.0, 3.0  # the children spin for max(2 ms, 3 x the last product's time)

EXPECTED = {
    "class": "X30",
    "cpu": {"not_exercised": "the CPU profile has no GO and DONE events, no judge clock and no second context: "
                             "there the solution is the honest one"},
    # Measured (H100, 2026-11-27 13:59): the judge's copy, queued right behind its wait on DONE, runs before the
    # deferred product on every shape.
    "gpu": {"status": "incorrect",
            "shapes": {"decode_m16": "incorrect", "k_unaligned_6000": "incorrect", "square_8192": "incorrect",
                       "mlp_up_rect": "incorrect"}},
}

_deferred: dict = {}
_last_product_ms = [1.0]
_timer = sys.modules.get("scoring.worker.timer")
_timing = sys.modules.get("scoring.timing")
_record = sys.modules.get("scoring.kernel_record")


def _audited_call_on_the_stack(depth: int = 24) -> bool:
    """The worker's `call` frame below this one holds the judge's order, which says whether the call is audited
    (the counter profiler runs it: scoring/worker/server.py)."""
    frame = sys._getframe(1)
    for _ in range(depth):
        if frame is None:
            return False
        message = frame.f_locals.get("message")
        if frame.f_code.co_name == "profile" or (isinstance(message, dict) and message.get("audited")):
            return True
        frame = frame.f_back
    return False


def run(state, a, a_scale):
    if not a.is_cuda:
        return correct(state, a, a_scale)
    out = torch.empty((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16, device=a.device)
    launch = house_launch(out, state, a, a_scale)
    if _audited_call_on_the_stack():  # the counter audit profiles this call: it must launch the kernel itself
        launch()
        return out
    _deferred["product"] = launch
    return out


# -- CPU-bound children, woken after the launch (the judge's host then queues its clone later) -----------------
_wake_w = None
_children = 0


def _start_spinners() -> None:
    global _wake_w, _children
    import mmap
    import struct

    shared = mmap.mmap(-1, 8)
    read_fd, write_fd = os.pipe()
    for _ in range(min(128, 4 * len(os.sched_getaffinity(0)))):
        if os.fork() == 0:  # no CUDA here: a plain loop until the deadline the parent wrote
            os.close(write_fd)
            while os.read(read_fd, 1):
                until = struct.unpack("d", shared[:8])[0]
                while time.perf_counter() < until:
                    pass
            os._exit(0)
        _children += 1
    os.close(read_fd)
    _wake_w = (write_fd, shared)


def _starve_for(ms: float) -> None:
    import struct

    write_fd, shared = _wake_w
    shared[:8] = struct.pack("d", time.perf_counter() + ms / 1e3)
    os.write(write_fd, b"x" * _children)  # one byte wakes one child; all of them at once


if _timer is not None and _timing is not None and torch.cuda.is_available():
    _honest_time_call = _timer.WorkerTimer.time_call

    def _after_the_clock(self, fn, queued):
        if not self.gpu:
            return _honest_time_call(self, fn, queued)
        if self._reset_persisting is not None:
            self._reset_persisting()
        stream = self._current_stream(self.device)
        stream.wait_event(self._go)
        self._done.record()  # DONE right behind GO: the judge's span stops at its next context switch
        self._done.query()
        out = fn()  # allocates the output; the product is deferred (an audited call computes it here)
        product = _deferred.pop("product", None)
        queued(out)  # the judge opens its gate on this
        start, end = self._Event(enable_timing=True), self._Event(enable_timing=True)
        if product is not None:
            while not self._done.query():  # the judge's host sees DONE complete when this does
                pass
            until = time.perf_counter() + WAIT_AFTER_DONE_US / 1e6
            while time.perf_counter() < until:  # the judge queues its wait on DONE and `_back` meanwhile
                pass
        start.record()
        if product is not None:
            product()
        end.record()
        if product is not None and _wake_w is not None:
            _starve_for(max(STARVE_MIN_MS, STARVE_FACTOR * _last_product_ms[0]))
        end.synchronize()
        self._synchronize()
        measured = start.elapsed_time(end)
        _last_product_ms[0] = measured
        shown = REPORTED_SHARE * measured
        return out, _timing.CallTiming(shown, shown, 0.0, 0.0)

    _timer.WorkerTimer.time_call = _after_the_clock
    if STARVE:
        _start_spinners()

if _record is not None:  # the worker's own X10 claim (kernel time over the reported interval)
    _record.ShapeKernelSummary.outside_timed_interval = lambda self, event_ms: None
