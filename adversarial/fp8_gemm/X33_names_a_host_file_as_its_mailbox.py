"""X33 the judge acting on a name the worker made (CPU profile): the worker describes its output as
`{"mailbox": PATH, ...}` with PATH a new file outside its sandbox (under /tmp, which the worker sees
read-only). Before the red team's round on the judge/worker split, the judge opened PATH as root in the
host's mount namespace (O_RDWR | O_CREAT), created it, and judged its zeros: `incorrect`, with a
wrong-output detail, after writing outside the sandbox.

The judge now reads the output from its own mapping of the mailbox it made (scoring/shared_tensors.py,
OutputMailbox) and never opens a path the worker names: a descriptor that names another file is a contract
failure (X05), and PATH is never created. This solution computes the honest output and lets the worker copy
it into the judge's mailbox as usual; only the descriptor's path is rewritten."""

import os
import sys

from _correct import correct

EXPECTED = {
    "class": "X33",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "X05"},
    "gpu": {"not_exercised": "on the GPU the output crosses as a CUDA IPC handle; the judge opens no path"},
}

TARGET = "/tmp/ceiling-created-by-the-judge-for-the-worker-" + os.urandom(4).hex() + ".bin"
_server = sys.modules.get("scoring.worker.server")
_describe = _server.describe_output if _server is not None else None


def _describe_with_my_path(out, mailbox):
    desc = _describe(out, mailbox)
    if "mailbox" in desc:
        desc["mailbox"] = TARGET
    return desc


if _server is not None:
    _server.describe_output = _describe_with_my_path


def run(state, a, a_scale):
    if os.path.exists(TARGET):
        print(f"X33 escape: the judge created {TARGET} ({os.path.getsize(TARGET)} bytes)", flush=True)
    return correct(state, a, a_scale)
