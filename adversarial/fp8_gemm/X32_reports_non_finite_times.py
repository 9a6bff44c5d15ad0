"""X32 a worker that garbles its claims: every call is honest, but the worker's timer is wrapped at import
so that each "done" message reports `device_ms` and `tail_ms` as NaN (Python's json writes and reads the
bare `NaN` token; scoring/wire.py accepts any JSON object with an event).

The judge builds CallTiming straight from the message and never asks whether a time is a finite, positive
number: the median is NaN, every comparison against it is False (the X10 tail rule, `outlived_detail`,
the fraction-above-one rule), and the shape passes with a NaN fraction, written into the result as a bare
`NaN` (not JSON to a strict reader: the board's and the viewer's parsers). On the GPU the same NaN also
turns the kernel record's X10 ratio (kernel time over the judge-forwarded event time) into NaN, so a side
stream behind it is not flagged either.

What the design should say: a time that is not a finite positive number is a broken claim, refused where
it is read (the wire or the judge): `integrity`, never a pass."""

import sys

from _correct import correct

EXPECTED = {
    "class": "X32",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}},
}

_timer = sys.modules.get("scoring.worker.timer")
if _timer is not None:
    _time_call = _timer.WorkerTimer.time_call

    def _non_finite(self, fn, queued):
        out, timing = _time_call(self, fn, queued)
        return out, timing._replace(device_ms=float("nan"), tail_ms=float("nan"))

    _timer.WorkerTimer.time_call = _non_finite


def run(state, a, a_scale):
    return correct(state, a, a_scale)
