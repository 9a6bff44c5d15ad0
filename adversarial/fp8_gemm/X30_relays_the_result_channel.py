"""X30 grader tampering: puts itself between the worker and its reply pipe (os.dup2 and a relay thread)
and rewrites every reported time to 0.8x of what the worker measured.

The judge reads the worker's pipe, so the relay can say anything the worker could; what it cannot change is
the judge's own clock. The CPU profile has no judge clock: there the forgery passes (timings not scores)."""

import json
import os
import sys
import threading

from _correct import correct

EXPECTED = {
    "class": "X30",
    "cpu": {
        "not_exercised": "the CPU profile has no judge clock and no kernel record: its host timings are "
        "not scores, and a forged one passes there"
    },
    # The judge's clock catches it (H100, 2026-11-27 16:24: 151-328 us over the calibrated gap against a limit of
    # 150 us on the three shapes of 0.38 ms and more); the worker's CUPTI kernel record, which this code could also
    # rewrite, caught it before the clock was judged (X10, kernel time 1.25x the reported interval).
    "gpu": {
        "status": "integrity",
        "shapes": {"square_8192": "integrity", "mlp_up_rect": "integrity"},
        "detail": "X30: the worker reported",
    },
}


def _relay(reply_fd: int) -> None:
    upstream = os.dup(reply_fd)  # the real pipe to the judge
    read_end, write_end = os.pipe()
    os.dup2(write_end, reply_fd)  # the worker now writes into our pipe
    os.close(write_end)

    def forward():
        buffer = b""
        while True:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                if message.get("event") == "done" and "timing" in message:
                    message["timing"]["device_ms"] *= 0.8
                data = json.dumps(message).encode() + b"\n"
                while data:
                    data = data[os.write(upstream, data) :]

    threading.Thread(target=forward, daemon=True).start()


_relay(int(sys.argv[-1]))


def run(state, a, a_scale):
    return correct(state, a, a_scale)
