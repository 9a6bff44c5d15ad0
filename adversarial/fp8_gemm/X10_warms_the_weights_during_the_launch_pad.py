"""X10 + X12: on weight-bound (decode) shapes, reads most of B into L2 on a side stream while the timer's
launch pad runs, before the start event, then joins the side stream back so nothing outlives the call.

The timer flushes the L2, then queues a ~200 us device-side pause before its start event so that host
launch latency is not charged (scoring/timing.py). Work the solution launches on another stream runs
during that pause: a short device-side wait (so the flush has finished), then a read of as much of B as
fits in three quarters of the L2. The timed GEMM (the house kernel, on the timed stream after the pause)
then finds those weights in L2: the weight-bound decode shape reads less from DRAM inside the timed
interval than the roofline's bytes_moved assumes. The side stream is joined to the timed stream before
the GEMM, so the side work ends long before the end event and the device-wide synchronise after it
sees no tail: the old X10 defence (work that outlives the timed stream) cannot see it. Compute-bound
shapes are left alone (nothing to gain there), and the output is the house kernel's, so it is correct.
Measured on an H100 with the scorer's timer: decode_m64_7168 (51 MB of B) 23.7 -> 20.0 us, 16% faster;
decode_m16 (64 MB of B, more than the 50 MB L2) 33.2 -> 32.6 us, no real gain. A longer or no wait put
the side work inside the timed interval (up to 120 us).

Defence (GPU): the timer's launch gate (scoring/launch_gate.py) fills every thread slot of every SM from
before the solution runs until the host has queued the whole call, so the side stream's pause and read
cannot start before the timed stream's start event: they run inside the timed interval, which the
timed stream then waits on. The warming gains nothing and costs its own time: in
the GPU corpus run of 2026-11-25 (results/corpus/h100_sxm/20261125T004652Z-*) decode_m16 timed 128 us and
decode_m64_7168 116 us, against the house kernel's 32 and 24 us. Whether the shape then also fails
turns on a few microseconds: the side stream's first kernel can start a few us before the timed stream
processes its start event when the gate opens, and CUPTI's kernel time against the events' time (on the
calls whose kernel activity is recorded) refuses a shape above 1.05x by more than 5 us: decode_m16 was
refused at 1.050x, decode_m64_7168 passed at 1.005x. So either status is expected; a gain is not. Before
the gate, that cross-check was the whole defence (4.5x and 6.7x the events, against 0.92 and 0.89 for the
house kernel). The CPU profile has no streams, no gate and no L2 flush.
"""

import torch
from _correct import correct

EXPECTED = {
    "class": "X10",
    "shape_set": "all",  # the held-out decode_m64_7168 is where the warming gains
    "cpu": {"not_exercised": "the CPU profile has no streams, no launch pad and no L2 flush to get ahead of"},
    "gpu": {"status": ["passed", "integrity"],  # refused or slower, never faster: see the docstring
            "shapes": {"decode_m16": ["passed", "integrity"], "decode_m64_7168": ["passed", "integrity"],
                       "square_8192": "passed"}},
}
WEIGHT_BOUND_M = 64  # up to this many rows the GEMM is bound by reading B
WAIT_US = 80.0  # device-side, on the side stream: the timer's flush (write + read of 2x L2) is over by then
L2_SHARE = 0.75
_side = []


def run(state, a, a_scale):
    if not a.is_cuda or a.shape[0] > WEIGHT_BOUND_M:
        return correct(state, a, a_scale)
    if not _side:
        properties = torch.cuda.get_device_properties(a.device)
        clock_khz = getattr(properties, "clock_rate", 0) or 1_980_000
        _side.append((torch.cuda.Stream(a.device), int(WAIT_US * clock_khz / 1e3),
                      int(properties.L2_cache_size * L2_SHARE)))
    side, wait_cycles, l2_bytes = _side[0]
    b = state["b"]
    rows = min(b.shape[0], l2_bytes // b.shape[1])
    timed_stream = torch.cuda.current_stream(a.device)
    with torch.cuda.stream(side):  # no wait on the timed stream: it is still behind the launch gate
        torch.cuda._sleep(wait_cycles)
        b[:rows].view(torch.uint8).max()  # reads `rows` rows of B; the result is not needed
    timed_stream.wait_stream(side)
    return correct(state, a, a_scale)
