"""X10 against the judge's clock at its start: the product computed after the judge's refill of the inputs and
before the judge's first timing event, by a kernel that watches the inputs change instead of waiting on GO.

Written blind (red team round 6 had no GPU): reasoned from the code; whether it ever wins turns on how the GPU
schedules the two contexts, which only a GPU run can show.

The judge's stream for a call (scoring/judge/clock.py, JudgeClock.hold): the gate, the refill of the shared input
buffers (scoring/shared_tensors.py, InputSlots.fill: `slot.copy_(fresh, non_blocking=True)`, a device-to-device
copy), cudaCtxResetPersistingL2Cache, the L2 flush (a fill and a sum over 2x the L2), GO, then `_after_go`, where
the judged span starts. The inputs exist, readable by the worker, from the end of the refill; the span starts
after the flush. Nothing orders the worker's work after GO but the worker's own `stream.wait_event(GO)`.

This worker queues, before it says "queued": a one-block kernel that spins until the input's scale (`a_scale`,
the last buffer InputSlots.fill copies, so its change means `a` is there too) differs from its value before the
call, then the product, then an event E1, then the wait on GO, an event E2 and DONE. The two contexts time-slice
the GPU's compute engine. If the judge's context gives up the compute engine between the refill and the flush
(a refill run by a copy engine, with the judge's compute channel waiting on its semaphore; or its time slice
ending there: the gate may have spun through most of it), the spinner, already queued, sees the new scale, and
the product runs at once in the worker's context; the judge's flush waits for the worker's context to idle or its
slice to end (at least ~1 ms on the H200: X10_finishes_after_done_behind_the_ipc_event held the judge's stream
that long). Then the flush, GO and `_after_go`; the worker's DONE follows GO at once: the judged span is a null
call's, and the product, finished before it started, is in the bytes the judge copies.

It knows whether it won: E1 -> E2 is the judge's flush and two context switches (> 30 us) when the product ran
before GO, ~0 when GO was already there. It reports REPORTED_SHARE of its event time when it won, its honest time
when it lost: losing costs nothing, and winning on more than half of a shape's timed calls is enough, since the
verdict and the score are both medians. The spinner's timeout (TIMEOUT_MS) only fires if the scale did not change
(equal bits: the product still reads the refilled inputs, later). Its CUPTI X10 claim is rewritten as in
X10_finishes_after_done_behind_the_ipc_event.py (the spinner's kernel time would show).

What a GPU run must check: judge_clock.gpu_gap_us_median against calibrated_gpu_gap_us per shape, the share of
calls it won (its reported median against the honest kernel's), the statuses.

What the design should say: the judge's clock must start before the inputs exist anywhere the worker can read
them (a timing event before the refill, the refill's own time calibrated per shape), or the inputs must reach
the worker only through something that GO orders; a span that starts after a gap the worker's context can fill
measures less than the call.
"""

import sys

import torch
import triton
import triton.language as tl

from _correct import correct
from _partial import house_launch

REPORTED_SHARE = 0.65  # the house kernel's fraction of peak stays under 1.0 on every fp8 shape
WON_THRESHOLD_MS = 0.03
TIMEOUT_MS = 20.0
NEVER = 0x7FC00001  # a NaN's bits, which the scale never has: the spinner returns at once

EXPECTED = {
    "class": "X10",
    "cpu": {"not_exercised": "the CPU profile has no GO event, no second context and no judge clock: there the "
                             "solution is the honest one"},
    # Reasoned, not run: passed either way. If the judge's context never yields between the refill and GO, every
    # call is honest (lost) and it scores as the house kernel; if it yields on most calls, it passes at 0.65x
    # its time. A GPU run must show which (the docstring says what to read).
    "gpu": {"status": "passed"},
}


@triton.jit
def _now_ns():
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit(do_not_specialize=["old_bits"])
def _until_the_inputs_change(watch_ptr, old_bits, timeout_ns: tl.constexpr):
    start = _now_ns()
    now = start
    seen = tl.load(watch_ptr, volatile=True)
    while (seen == old_bits) & (now - start < timeout_ns):
        seen = tl.load(watch_ptr, volatile=True)
        now = _now_ns()


_mode = {"defer": False}
_deferred: dict = {}


def _scale_bits(a_scale):
    return a_scale.reshape(1).view(torch.int32)


def run(state, a, a_scale):
    if not a.is_cuda:
        return correct(state, a, a_scale)
    out = torch.empty((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16, device=a.device)
    launch = house_launch(out, state, a, a_scale)
    if _mode["defer"]:  # the patched timer queues the spinner and the product before GO
        _deferred.update(product=launch, scale=a_scale)
        return out
    # An audited (or honest-path) call: the same kernels, the spinner returning at once, after GO.
    _until_the_inputs_change[(1,)](_scale_bits(a_scale), NEVER, timeout_ns=int(TIMEOUT_MS * 1e6), num_warps=1)
    launch()
    return out


def _audited_call_on_the_stack(depth: int = 24) -> bool:
    frame = sys._getframe(1)
    for _ in range(depth):
        if frame is None:
            return False
        message = frame.f_locals.get("message")
        if isinstance(message, dict) and message.get("audited"):
            return True
        frame = frame.f_back
    return False


_timer = sys.modules.get("scoring.worker.timer")
_timing = sys.modules.get("scoring.timing")
_record = sys.modules.get("scoring.kernel_record")

if _timer is not None and _timing is not None and torch.cuda.is_available():
    _honest_time_call = _timer.WorkerTimer.time_call

    def _before_go(self, fn, queued):
        if not self.gpu or _audited_call_on_the_stack():
            return _honest_time_call(self, fn, queued)
        if self._reset_persisting is not None:
            self._reset_persisting()
        stream = self._current_stream(self.device)
        _mode["defer"] = True
        try:
            out = fn()  # allocates the output, builds the launch; nothing queued yet
        finally:
            _mode["defer"] = False
        product, scale = _deferred.pop("product", None), _deferred.pop("scale", None)
        e0, e1, e2 = (self._Event(enable_timing=True) for _ in range(3))
        if product is not None:
            bits = _scale_bits(scale)
            old = int(bits.item())  # the scale before the refill: the judge refills only after "queued"
            _until_the_inputs_change[(1,)](bits, old, timeout_ns=int(TIMEOUT_MS * 1e6), num_warps=1)
            e0.record()
            product()
            e1.record()
        else:
            e0.record()
            e1.record()
        stream.wait_event(self._go)
        e2.record()
        self._done.record()
        self._done.query()
        queued(out)
        e2.synchronize()
        self._synchronize()
        measured = e0.elapsed_time(e1)
        won = product is not None and e1.elapsed_time(e2) > WON_THRESHOLD_MS
        shown = REPORTED_SHARE * measured if won else measured
        return out, _timing.CallTiming(shown, shown, 0.0, 0.0)

    _timer.WorkerTimer.time_call = _before_go

if _record is not None:  # the worker's own X10 claim (the spinner's kernel time is outside the events)
    _record.ShapeKernelSummary.outside_timed_interval = lambda self, event_ms: None
