"""X32 a worker that garbles its channel: on its first call it writes one short line that is valid JSON
text only in shape -- 100,000 nested arrays -- to the pipe it reports on, then computes honestly.

scoring/wire.py's `_parse` turns a `ValueError` from `json.loads` into a "malformed" WireError, which the
judge reports as X14 and kills the worker for. A deeply nested line raises `RecursionError` instead, which
is not a ValueError: it leaves `Reader.get` and `WorkerLink.expect` unclassified and reaches the judge's
catch-all ("the judge failed: ..."), a `runtime_error` the judge blames on itself.

What the design should say: a line the judge cannot parse is the worker's broken channel, `integrity`
(X14: malformed message), however the parser fails."""

import os
import sys

from _correct import correct

EXPECTED = {
    "class": "X32",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "X14: malformed message"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "X14: malformed message"},
}

_sent = []


def run(state, a, a_scale):
    if not _sent:
        _sent.append(True)
        os.write(int(sys.argv[-1]), b"[" * 100_000 + b"\n")
    return correct(state, a, a_scale)
