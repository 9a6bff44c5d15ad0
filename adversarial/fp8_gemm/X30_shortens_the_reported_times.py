"""X30 grader tampering: finds the worker's timer through `gc` and has it report 0.8x every call's time.

Honest work, forged report: only the judge's own clock (scoring/judge/cross_check.py) can catch it, since
the worker's numbers are whatever this code makes them. The CPU profile has no judge clock, so there the
forgery passes (and the CPU profile's timings are not scores)."""

import gc

from _correct import correct

EXPECTED = {
    "class": "X30",
    "cpu": {"not_exercised": "the CPU profile has no judge clock and no kernel record: its host timings are "
                             "not scores, and a forged one passes there"},
    # Caught twice on square_8192: by the judge's clock (excess 187-195 us against a limit of 150 us, H100
    # 2026-11-27; 20 us since: scoring/judge/cross_check.py) and by the worker's CUPTI kernel record (kernel time
    # 1.25x the reported interval, X10), which this code could also rewrite. Which detail a run shows first varies.
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}},
}


def _shorten_every_timer() -> int:
    patched = 0
    for obj in gc.get_objects():
        if type(obj).__name__ == "WorkerTimer" and not getattr(obj, "_shortened", False):
            honest = obj.time_call

            def time_call(fn, queued, _honest=honest):
                out, timing = _honest(fn, queued)
                return out, timing._replace(device_ms=timing.device_ms * 0.8)

            obj.time_call = time_call
            obj._shortened = True
            patched += 1
    return patched


_shorten_every_timer()


def run(state, a, a_scale):
    return correct(state, a, a_scale)
