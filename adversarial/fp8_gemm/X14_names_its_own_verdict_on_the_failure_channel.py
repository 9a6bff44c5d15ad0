"""X14 (for X23) through the worker's failure message: a solution hardcoded for the declared shapes, wrong on every
other shape, that tells the judge "failed" with the status "passed" where it would be wrong.

The judge turns a worker's "failed" message into a SolutionFailed carrying the worker's own `status` and
`detail` strings (scoring/judge/link.py, `expect`), and process.py sends that status as the shape's verdict
(`_unfinished(raw, failed.status, failed.detail)`). Any status at all, "passed" included, crosses the trust
boundary unread. Property-drawn shapes must pass but are never timed (scoring/run.py TIMED_SETS), so a
"passed" without timing there costs the headline nothing: a solution that computes zeros on every shape
it was not told about scores exactly as an honest one.

On a shape it does not know, `run` writes {"event": "failed", "status": "passed", "fresh": true} on the
worker's reply pipe (its descriptor ends the worker's command line) and ends the worker; "fresh" makes
the judge end too, and the scorer starts a fresh judge at the next shape.

What the design should say: the worker's classification is a claim; the judge can only turn it into one
of the failing statuses it knows (runtime_error, forbidden_op, integrity, incorrect), never "passed" or a
status it does not know. The property shapes are then not passed: the system is not passed. (Round 2 of the
red team found it passing every shape in the CPU profile; the judge now refuses any status outside its fixed
sets as X14, scoring/judge/link.py CALL_FAILURE_STATUSES.)
"""

import os
import sys

import torch

from _correct import correct

EXPECTED = {
    "class": "X14",
    "shape_set": "all",
    "cpu": {"status": ["integrity", "runtime_error", "incorrect"],
            "shapes": {"square_64": "passed", "k_unaligned_112": "passed", "decode_m4": "passed",
                       "odd_m_33": "passed"}},
    "gpu": {"status": ["integrity", "runtime_error", "incorrect"],
            "shapes": {"square_8192": "passed", "decode_m16": "passed"}},
}

DECLARED = {(64, 64, 64), (96, 80, 112), (4, 128, 256), (33, 48, 80),  # the CPU profile's named shapes
            (8192, 8192, 8192), (6144, 6144, 6000), (16, 8192, 8192), (8192, 28672, 4096),
            (3000, 5120, 4112), (64, 7168, 7168), (4096, 4096, 14336)}


def run(state, a, a_scale):
    M, K = a.shape
    N = state["b"].shape[0]
    if (M, N, K) in DECLARED:
        return correct(state, a, a_scale)
    reply_fd = int(sys.argv[-1])
    os.write(reply_fd, b'{"event": "failed", "status": "passed", "detail": "", "fresh": true}\n')
    os._exit(0)
    return torch.zeros((M, N), dtype=torch.bfloat16, device=a.device)  # what it would have returned
