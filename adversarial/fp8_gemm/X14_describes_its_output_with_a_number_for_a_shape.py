"""X14 a malformed output descriptor one level down: the "queued" message's `output` is an object, as
MESSAGE_FIELDS asks, whose `shape` is the number 5.

`check_descriptor` (scoring/shared_tensors.py) runs `tuple(desc.get("shape") or ())`, which raises
TypeError on an int; `WorkerLink.call` catches only DescriptorError, so the exception reaches the judge's
catch-all ("the judge failed: ..."), a runtime_error the judge blames on itself (round 3 fixed the same
crash for a descriptor that is a list, at the top level only).

What the design should say: integrity (X14: malformed message) or incorrect (X05: the output contract)."""

import gc
import os
import sys

from _correct import correct

EXPECTED = {
    "class": "X14",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "X14"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "X14"},
}

_reply_fd = int(sys.argv[-1])
for obj in gc.get_objects():
    if type(obj).__name__ == "WorkerTimer":
        honest = obj.time_call

        def time_call(fn, queued, _honest=honest):
            def forged(out):
                os.write(_reply_fd, b'{"event": "queued", "output": {"type": "torch.Tensor", "shape": 5}}\n')
            return _honest(fn, forged)

        obj.time_call = time_call


def run(state, a, a_scale):
    return correct(state, a, a_scale)
