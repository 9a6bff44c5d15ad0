"""X32 a worker that breaks its channel: on its first call it writes an endless line to the pipe it
reports on. The judge reads at most a bounded message: the shape fails as a broken channel, the judge
kills the worker, and the result is written with a status."""

import os
import sys

from _correct import correct

EXPECTED = {
    "class": "X32",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "X14: malformed message"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "X14: malformed message"},
}


def run(state, a, a_scale):
    chunk = b"x" * (1 << 20)
    fd = int(sys.argv[-1])
    for _ in range(64):  # 64 MiB without a newline
        os.write(fd, chunk)
    return correct(state, a, a_scale)
