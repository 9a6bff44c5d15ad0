"""X13 phase detection: correct for the first calls of a process (checks and warm-up), zeros once
timing is underway. The last timed call is always checked."""

from _correct import correct, zeros_like_output

EXPECTED = {
    "class": "X13",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"},
            "detail": "X02/X03/X13: a timed call failed"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"},
            "detail": "X02/X03/X13: a timed call failed"},
}
_calls = [0]


def run(state, a, a_scale):
    _calls[0] += 1
    if _calls[0] > 6:
        return zeros_like_output(state, a)
    return correct(state, a, a_scale)
