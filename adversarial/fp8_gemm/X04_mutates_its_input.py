"""X04 input mutation: computes the right answer, then zeroes the input it was given."""

from _correct import correct

EXPECTED = {
    "class": "X04",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "X04: input mutation"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "X04: input mutation"},
}


def run(state, a, a_scale):
    out = correct(state, a, a_scale)
    a.zero_()
    return out
