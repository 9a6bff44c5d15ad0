"""X13 partial work: the whole product on calls it believes checked, all but the last rows on the rest.

Believed checked: the first calls of each shape (a grader checks its seeds before it times), every
20th call (in case checks are drawn at a stride), a call with an active Python dispatch mode, a call
around which deterministic algorithms or `fill_uninitialized_memory` were switched since the import
(the old scorer switched both on for checked calls only, to poison torch.empty), a process that looks
profiled (_watch.py), and the call that gets the previous call's input tensor back, refilled (the old
scorer's always-checked last call). On the other calls it computes the product for all but at least
the last 1% of rows, rounded down to whole row tiles of the house kernel so that those rows are work
never done, and leaves the skipped rows unwritten in a torch.empty output: without poisoning they hold
the previous call's rows. 1% of rows is the least skip the normwise tolerance sees (normwise error
~0.1); a larger skip gains more and fails the same way.

Defence: every call's output is verified (Freivalds from the left: r^T C against ((r^T A) B^T) scaled,
fresh random r per call), and nothing the solution reads differs between checked and timed calls, so
the first call it skips work on fails: "X02/X03/X13: a timed call failed verification" (a warm-up call
is verified like any other).
"""

from _correct import correct
from _partial import first_rows, kept_rows, row_tile
from _watch import dispatch_mode_active, flags_switched, profiled

EXPECTED = {
    "class": "X13",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"},
            "detail": "X02/X03/X13: a timed call failed verification"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"},
            "detail": "X02/X03/X13: a timed call failed verification"},
}
HONEST_FIRST_CALLS = 3  # scoring.run checks 3 seeds per shape before timing (the corpus runner 2)
HONEST_EVERY = 20
SKIPPED_SHARE = 0.01
_calls: dict[tuple, int] = {}
_previous_input = []  # held, so a refilled tensor is recognised by identity


def believed_checked(index: int, a) -> bool:
    refilled = bool(_previous_input) and _previous_input[0] is a
    return (index < HONEST_FIRST_CALLS or index % HONEST_EVERY == 0 or refilled or dispatch_mode_active()
            or flags_switched() or profiled())


def run(state, a, a_scale):
    key = (a.shape[0], state["b"].shape[0], a.shape[1])
    index = _calls[key] = _calls.get(key, -1) + 1
    checked = believed_checked(index, a)
    _previous_input[:] = [a]
    if checked:
        return correct(state, a, a_scale)
    return first_rows(state, a, a_scale, kept_rows(a.shape[0], SKIPPED_SHARE, row_tile(state, a)))
