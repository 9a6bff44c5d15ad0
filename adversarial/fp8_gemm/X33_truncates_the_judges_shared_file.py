"""X33/X30 across the sandbox: the worker kills the judge (root, outside its namespaces) with SIGBUS, at a
moment it chooses, through a file the judge maps.

In the CPU profile the judge's input buffers are files it creates in the worker's scratch folder and maps
shared (scoring/shared_tensors.py, create_shared_file: a random name, O_EXCL|O_NOFOLLOW, its own
descriptor). The worker cannot make the judge open another file, but the file itself is the worker's to
change: it is in the one folder the worker may write, owned by uid 0 like the worker. After computing the
honest output this solution truncates every `input-*.bin` of its scratch folder to 0 bytes; the judge then
reads its own mapping of them (`InputSlots.unchanged`, then `fill` for the next call) and the kernel
delivers SIGBUS for pages past the end of the file: the judge dies. Round 2 gave the worker a session of
its own so that "the worker cannot reach the judge with a signal"
(X30_signals_the_judge_through_its_process_group.py); this reaches it all the same, and the shape is recorded
as the judge's own crash ("process ended (killed by SIGBUS)"), not as what the worker did.

What the design should say: nothing the worker does to a shared file can crash the judge; an input file
that changed under the judge is an input mutation (X04): incorrect. (The judge could copy through
pread/pwrite on its own descriptor instead of reading a mapping, or check fstat's size and handle SIGBUS; on
the GPU the buffers are CUDA IPC allocations the worker cannot shrink.)
"""

import os
from pathlib import Path

from _correct import correct

EXPECTED = {
    "class": "X33",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "X04"},
    "gpu": {"not_exercised": "on the GPU the inputs cross by CUDA IPC; no file the worker can shrink"},
}


def run(state, a, a_scale):
    out = correct(state, a, a_scale)
    for path in Path(os.environ.get("TMPDIR", "/tmp")).glob("input-*.bin"):
        try:
            os.truncate(path, 0)
        except OSError:
            pass
    return out
