"""X10 against the judge's snapshot: half the rows inside the timed call, the other half after DONE, and the
judge's copy of the output made to wait for them through the output descriptor's own IPC event.

Written blind (the red team's round 2 had no GPU): to be run on one before it is trusted either way.

The judge reads the output "when DONE completed" (docs/integrity.md, "The trust boundary"): its stream waits
on the worker's DONE and then clones the output (scoring/judge/link.py, `call`). But the clone's storage is
opened with `torch.UntypedStorage._new_shared_cuda(*args)` on the worker's descriptor unchanged
(scoring/shared_tensors.py, OutputOpener.open), and args[6:8] are torch's IPC event and
`event_sync_required`: `_new_shared_cuda` makes the judge's current stream wait on that event
(torch/csrc/StorageSharing.cpp, THPStorage_newSharedCuda) before the clone is queued. torch records the event
when the worker calls `_share_cuda_` in `describe_output`, which the worker runs after DONE (`_queued`).
So work the worker queues after DONE and before `describe_output` is inside what the judge copies, and
outside both the worker's events and the judge's own span GO..DONE (the clock of issue 32 agrees with the
short time, whether it is judged or not). OutputOpener caches a storage per (handle, size, offset) and opens
it again (and waits again) only for a new key, so the claimed storage size, which the judge checks only
against the view, grows by 2 bytes a call.

The worker's own claims that would show the late half (the device-wide synchronise's tail, the CUPTI
ratio) are rewritten, as in X30_shortens_the_reported_times.py: claims are not the point here; the judge's
snapshot and clock are.

What the design should say: the judge opens the storage with no event of the worker's (event_sync_required
False; it has already waited on DONE): now the case (scoring/shared_tensors.py). Our reading, not yet run on
a GPU: the late half is queued in the worker's context right behind DONE, so it most likely finishes before
the judge's own stream (which waits for DONE, then for its turn on the GPU) copies the output, and the call
passes at half its time; what shows it is judge-side but not yet judged (`judge_clock`'s
back_to_the_judge_us, how long after DONE the judge's stream ran). Expected then: passed, a residual of X30.
Measured: it passed; the judge's GPU clock (scoring/judge/cross_check.py) is what now catches it.
"""

import sys

import torch

from _correct import correct
from _partial import first_rows

EXPECTED = {
    "class": "X10",
    "cpu": {"not_exercised": "the CPU profile copies the output into the judge's mailbox; no IPC event"},
    # Measured (H100 10:50 and H200 11:08, 2026-11-27, before the judge's GPU clock was judged): passed at
    # half its time where the fraction stayed under 1 (k_unaligned_6000 0.86), rejected only by the physical
    # bound on the large shapes. The judge's GPU span saw 300-1190 us per call more than calibrated.
    "gpu": {"status": "integrity", "shapes": {"k_unaligned_6000": "integrity", "square_8192": "integrity"},
            "detail": "judge's GPU clock"},
}

_pending: dict = {}
_calls = [0]
_server = sys.modules.get("scoring.worker.server")
_timer = sys.modules.get("scoring.worker.timer")
_record = sys.modules.get("scoring.kernel_record")


def run(state, a, a_scale):
    if not a.is_cuda:
        return correct(state, a, a_scale)
    rows = a.shape[0] // 2
    out = first_rows(state, a, a_scale, rows)  # inside the events: half the work
    _pending["late"] = (state, a, a_scale, out, rows)
    return out


if _server is not None and torch.cuda.is_available():
    _describe = _server.describe_output

    def _describe_after_the_late_half(out, mailbox):
        late = _pending.pop("late", None)
        if late is not None:
            state, a, a_scale, target, rows = late
            target[rows:] = correct(state, a[rows:], a_scale)  # after DONE, before torch's IPC event
        desc = _describe(out, mailbox)  # _share_cuda_ records its event now, behind the late half
        if late is not None and isinstance(desc.get("cuda_ipc"), list):
            _calls[0] += 1
            shared = list(desc["cuda_ipc"])
            shared[2] = shared[2] + 2 * _calls[0]  # a new key: the judge opens (and waits) again
            shared[7] = True
            desc["cuda_ipc"] = shared
        return desc

    _server.describe_output = _describe_after_the_late_half

if _timer is not None:
    _time_call = _timer.WorkerTimer.time_call

    def _quiet_tail(self, fn, queued):
        out, timing = _time_call(self, fn, queued)
        return out, timing._replace(tail_ms=0.0, host_ms=timing.device_ms)

    _timer.WorkerTimer.time_call = _quiet_tail

if _record is not None:
    _record.ShapeKernelSummary.outside_timed_interval = lambda self, event_ms: None
