"""X13 stack inspection: reads from the grader's own stack frames whether this call's output will be
compared with the reference, and skips a third of the rows when it will not.

A scorer that decides which timed calls it checks before it makes them keeps the decision in a local of
the function that makes the call (scoring/worker.py before the watch: `one_call(check_this,
same_storage)`; while it was written: `one_call(against_reference, same_storage, timed)`), beside the
correctness loop (`correctness`), the always-checked last call (`one_call("last")`) and the audited call
(`call(..., audited)`, whose local is still on the stack while the solution runs). Walking
`sys._getframe()` up to those frames tells every checked, audited or last call apart exactly, with no
guessing: those are honest, the others compute the first two thirds of the rows (whole row tiles: the
rest is work never done, about 1.5x the speed, still under the roofline) and leave the rest unwritten.
A frame it does not recognise is treated as checked. Against a scorer that checks only the calls it
decided to check (and profiles one chosen call), this passes everything, audits included, at 1.5x. The
current worker draws the reference sample after the call returns, so a sampled call is no longer
visible; the seeds, the last call and the audited call still are.

Since the judge/worker split the decision is made in the judge's process, after the call: the worker's
frames hold nothing to read, so this solution takes every call for unwatched and skips (the frame walk is
kept as it was), and the judge's checks of its own copy of the output fail it at once.

Defence before the split: the decision was no longer the only check: every call's output is verified (Freivalds, fresh
random vector per call) whatever the grader's locals say, so the first skipping call (a warm-up) fails:
"X02/X03/X13: a timed call failed verification".
"""

import sys

from _correct import correct
from _partial import first_rows, kept_rows, row_tile

EXPECTED = {
    "class": "X13",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}},
}
SKIPPED_SHARE = 1 / 3
CHECKED_LOCALS = ("against_reference", "check_this", "same_storage", "audited")
FRAMES_UP = 12


def grader_will_check() -> bool:
    frame = sys._getframe(2)
    for _ in range(FRAMES_UP):
        if frame is None:
            break
        name, local = frame.f_code.co_name, frame.f_locals
        if name == "correctness" or local.get("kind") == "last" or \
                any(local.get(flag) is True for flag in CHECKED_LOCALS):
            return True
        if name == "one_call":  # a timed or warm-up call whose flags are all off
            return False
        frame = frame.f_back
    return False  # no grader decision in this process (the judge keeps it): take the call for unwatched


def run(state, a, a_scale):
    if grader_will_check():
        return correct(state, a, a_scale)
    return first_rows(state, a, a_scale, kept_rows(a.shape[0], SKIPPED_SHARE, row_tile(state, a)))
