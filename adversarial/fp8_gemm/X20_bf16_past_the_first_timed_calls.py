"""X20 + X13 by counting, not by reading the grader: the honest fp8 kernel for the first 11 calls on each
prepared state, then bf16 wgmma under the house kernel's name (as X20_residual_same_kernel_name_when_audited.py)
for every call after. It never looks at the grader's frames or the profiler.

Written against the corpus's timing (scoring/corpus/runner.py: one call per check seed on the state that
is timed, five warm-up calls, min_calls=5): the first call on the timed state is a check, the next five are
the warm-up, which it makes slow (70 ms of sleep each), and the next five are the first timed calls. Before,
the audited call was an index drawn among the calls the warm-up's pace promised (min_calls at 70 ms a call):
always among the honest ones, so the tensor_precision audit saw fp8 and the run passed with bf16 on every
call after the fifth.

Defence (GPU): the audited call is drawn by a reservoir over every timed call made (scoring/audit.py
AuditReservoir): call i is profiled with probability 1/(i+1) and the last one drawn is judged, so each timed
call is the judged one with probability 1/n whatever the warm-up's pace. This case is scored with a recorded
secret whose draws reach timed call 5, past the honest ones, so it fails the audit whenever the shape gets six
or more timed calls (19 on an H100, where its calls fill the floor of timed seconds); with a fresh secret it
fails with probability 1 - 5/n per run, and a solution that moves the median must switch on more than half of
the timed calls (tests/scoring/test_timing.py measures both rates over many seeds).
"""

import time

from _bf16 import bf16_under_the_house_name
from _correct import correct

EXPECTED = {
    "class": "X20",
    "cpu": {"not_exercised": "the CPU profile has no tensor-pipe counters and no counter audit"},
    # The secret's reservoir on square_8192 (the audited shape it draws) profiles timed calls 0, 5 and 15.
    "gpu": {"status": "integrity", "detail": "tensor_precision: failed (X20", "seed_secret": "0000000000000018"},
}
HONEST_CALLS = 11  # 1 check + 5 warm-up + 5 timed
SLOW_CALLS = 6  # the check and the warm-up: a slow warm-up promised few timed calls


def run(state, a, a_scale):
    calls = state.setdefault("_calls", 0) + 1  # a fresh state per check seed; the last one is timed
    state["_calls"] = calls
    if not a.is_cuda:
        return correct(state, a, a_scale)
    if calls == 1:
        bf16_under_the_house_name(state, a, a_scale)  # compiled now, not during a timed call
    if calls <= SLOW_CALLS:
        time.sleep(0.07)
    if calls <= HONEST_CALLS:
        return correct(state, a, a_scale)
    return bf16_under_the_house_name(state, a, a_scale)
