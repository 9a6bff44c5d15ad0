"""X15 + robustness: on the shape whose K is not a power of two (k_unaligned_*), turns TF32 on, then raises.

The grader checks its backend flags after every call that returns; this call never returns. Against a scorer
that goes on in the same process after an exception without looking, the flag stays on for the next shapes'
fp32 references (on a GPU), and the shape reads as a plain runtime error. Defence: when a shape raises, the
worker checks for tampering before it goes on (Runner.recover): this shape is an integrity verdict, the flag is
restored, the next shape runs in a fresh process and passes.
"""

import torch
from _correct import correct

EXPECTED = {
    "class": "X15",
    "cpu": {"status": "integrity", "shapes": {"k_unaligned_112": "integrity", "decode_m4": "passed"},
            "detail": "flag cuda.matmul.allow_tf32"},
    "gpu": {"status": "integrity", "shapes": {"k_unaligned_6000": "integrity", "decode_m16": "passed"},
            "detail": "flag cuda.matmul.allow_tf32"},
}


def run(state, a, a_scale):
    k = a.shape[1]
    if k & (k - 1):
        torch.backends.cuda.matmul.allow_tf32 = True
        raise RuntimeError("unsupported K")
    return correct(state, a, a_scale)
