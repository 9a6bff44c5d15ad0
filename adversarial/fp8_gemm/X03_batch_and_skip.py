"""X03 batch-and-skip: does the work on every other call and hands back the previous answer in between.

The second correctness seed already gets the first seed's answer.
"""

from _correct import correct

EXPECTED = {
    "class": "X03",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "outside"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "outside"},
}
_last = {}


def run(state, a, a_scale):
    _last["calls"] = _last.get("calls", 0) + 1
    if _last["calls"] % 2 == 1:
        _last["out"] = correct(state, a, a_scale)
    return _last["out"]
