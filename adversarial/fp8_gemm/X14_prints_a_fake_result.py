"""X14 fake result line: prints a 'passed' result on stdout and returns zeros. Stdout goes to the log."""

import json

from _correct import zeros_like_output

EXPECTED = {
    "class": "X14",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "outside"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "outside"},
}


def run(state, a, a_scale):
    print(json.dumps({"event": "shape_result", "status": "passed", "fraction": 1.0}), flush=True)
    return zeros_like_output(state, a)
