"""X32 a worker whose times are well-formed JSON numbers that no float can hold: it has the worker's timer
report every call's device_ms as the integer 10**400 (401 digits, under the parser's 4300-digit limit).

`worker_timing` (scoring/judge/link.py) checks `isinstance(v, (int, float))` and then `math.isfinite(v)`,
which raises OverflowError on such an int: not a refusal of the claim but an exception out of
`WorkerLink.call`, caught by the judge's catch-all ("the judge failed: ..."), a runtime_error the judge
blames on itself -- round 1's deeply-nested line again, one level down (MESSAGE_FIELDS checks the top level
of "done" only: `timing` is any dict). The same int in the "ready" message's startup_s (`_number` passes it,
`float(seconds)` in scoring/judge/process.py raises) ends as "the judge failed to start its worker".

What the design should say: integrity (X32: times that are not finite numbers of milliseconds)."""

import gc

from _correct import correct

EXPECTED = {
    "class": "X32",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "X32"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "X32"},
}

for obj in gc.get_objects():
    if type(obj).__name__ == "WorkerTimer":
        honest = obj.time_call

        def time_call(fn, queued, _honest=honest):
            out, timing = _honest(fn, queued)
            return out, timing._replace(device_ms=10 ** 400)

        obj.time_call = time_call


def run(state, a, a_scale):
    return correct(state, a, a_scale)
