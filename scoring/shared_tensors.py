"""Tensors that cross the line between the judge and its worker, without a copy and without pickle from
the worker.

The judge owns the input tensors: it makes them in its own memory (the pristine copies it checks against),
and the worker sees them through buffers the judge shares once per shape and refills before every call
(`InputSlots`). On the GPU a buffer is shared by CUDA IPC (the judge pickles the tensor for the worker with
torch's IPC reductions: judge to worker only); in the CPU profile it is a file both processes map.

The solution's output crosses the other way as a descriptor, a JSON object of plain fields that the judge
validates before it maps a byte (`open_output`): on the GPU the CUDA IPC handle of the output's storage,
its offset, shape, strides and dtype; in the CPU profile the worker copies the output into a file the judge
named (`OutputMailbox`), since host memory has no IPC handle.

Those files live in the worker's scratch folder, the one folder the worker can write. So the judge never
acts on a name there that the worker could have made: it creates each file under a name it draws at random,
with O_CREAT | O_EXCL | O_NOFOLLOW (a link or a file planted under that name refuses the creation), and moves
bytes through its own descriptor with pwrite and pread, never through a path the worker names (an adversary
planted links where the judge would create its files, and named a host file as its mailbox:
adversarial/fp8_gemm/X33_*) and never through a mapping (the worker can truncate the file, and a mapped
read past the end kills the reader with SIGBUS: X33_truncates_the_judges_shared_file). A file found shorter
than the judge wrote it reads as changed.
"""

from __future__ import annotations

import base64
import importlib
import math
import os
import pickle
import re
import secrets
from pathlib import Path

import torch

DTYPES = {
    str(d): d
    for d in (
        torch.float64,
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.float8_e4m3fn,
        torch.float8_e5m2,
        torch.int64,
        torch.int32,
        torch.int16,
        torch.int8,
        torch.uint8,
        torch.bool,
    )
}


REF_COUNTER_NAME = re.compile(rb"/torch_[0-9]+_[0-9]+_[0-9]+")  # at::NewProcessWideShmHandle's names
REF_COUNTER_FILE_ENTRIES = 10_000  # CUDA_IPC_REF_COUNTER_FILE_SIZE (torch/csrc/CudaIPCTypes.h)


class DescriptorError(Exception):
    """The worker's description of its output cannot be what it claims (a contract failure, X05)."""


class SharedFile:
    """A file in the worker's scratch folder, made by the judge alone (a random name, created exclusively and
    without following a link) and used only through the judge's descriptor: whatever the name later points
    at, the judge writes and reads the inode it created."""

    def __init__(self, folder: Path, stem: str, nbytes: int):
        self.path = folder / f"{stem}-{secrets.token_hex(8)}.bin"
        self.nbytes = nbytes
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.ftruncate(self.fd, nbytes)

    def write(self, tensor: torch.Tensor) -> None:
        data = _bytes_of(tensor)
        if os.pwrite(self.fd, data, 0) != len(data):
            raise OSError(f"{self.path.name}: short write")

    def read(self, dtype: torch.dtype, shape) -> torch.Tensor | None:
        """The file's values as a tensor of the judge's own; None when the file is shorter than it should be
        (the worker truncated it)."""
        nbytes = math.prod(shape) * torch.empty((), dtype=dtype).element_size()
        data = os.pread(self.fd, nbytes, 0) if nbytes else b""
        if len(data) < nbytes:
            return None
        return (
            torch.frombuffer(bytearray(data), dtype=torch.uint8).view(dtype).reshape(shape)
            if nbytes
            else torch.empty(shape, dtype=dtype)
        )

    def close(self) -> None:
        os.close(self.fd)


def _bytes_of(tensor: torch.Tensor) -> bytes:
    flat = tensor.detach().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


# ---------------------------------------------------------------------------------------------- inputs
class InputSlots:
    """The judge's shared input buffers for one worker: one per input key, re-made when a key's shape or
    dtype changes (a block table's width varies per call), refilled with the call's values otherwise."""

    def __init__(self, device: torch.device, folder: Path):
        self.device = device
        self.folder = folder
        self.slots: dict[str, torch.Tensor] = {}  # key -> this call's view of its buffer
        self.buffers: dict[str, torch.Tensor] = {}  # key -> the flat shared buffer (the judge's own on the CPU)
        self.files: dict[str, SharedFile] = {}  # CPU profile: key -> the buffer's file

    def update(self, fresh: dict) -> dict:
        """The payload that brings the worker's view up to date with `fresh`'s keys, shapes and dtypes (the
        values are written by `fill`). A buffer is re-made only when a key's dtype changes or its elements
        outgrow the buffer (with room to spare: a block table's width varies per call); a new mapping per
        call would cost the worker's kernels fresh page-table walks (measured: paged attention 2x slower)."""
        new: dict[str, torch.Tensor] = {}
        values: dict[str, object] = {}
        shapes: dict[str, list[int]] = {}
        for key, value in fresh.items():
            if not isinstance(value, torch.Tensor):
                values[key] = value
                continue
            buffer = self.buffers.get(key)
            if buffer is None or buffer.dtype != value.dtype or buffer.numel() < value.numel():
                capacity = value.numel() if buffer is None else 2 * value.numel()
                self.buffers[key] = new[key] = self._allocate(key, capacity, value.dtype)
            self.slots[key] = self.buffers[key][: value.numel()].view(value.shape)
            shapes[key] = list(value.shape)
        for key in [k for k in self.slots if k not in shapes]:
            del self.slots[key], self.buffers[key]
            self._forget_file(key)
        return {"values": values, "tensors": self._describe(new), "shapes": shapes, "keys": sorted(fresh)}

    def fill(self, fresh: dict) -> None:
        """Copy the call's values into the shared buffers (on the current stream, on the GPU)."""
        for key, slot in self.slots.items():
            if key in self.files:
                self.files[key].write(fresh[key])
            else:
                slot.copy_(fresh[key], non_blocking=True)

    def unchanged(self, pristine: dict) -> torch.Tensor | None:
        """A device boolean: every shared buffer still equal to the call's pristine values (NaN equal to NaN),
        queued on the current stream; None when there are no tensor inputs. A file the worker cut short is
        changed."""
        flags = []
        for key, slot in self.slots.items():
            if key in self.files:
                seen = self.files[key].read(slot.dtype, slot.shape)
                flags.append(torch.zeros((), dtype=torch.bool) if seen is None else _same_values(seen, pristine[key]))
            else:
                flags.append(_same_values(slot, pristine[key]))
        return torch.stack(flags).all() if flags else None

    def close(self) -> None:
        """The judge's descriptors of this set's files (the files go with the scratch folder)."""
        for key in list(self.files):
            self._forget_file(key)

    def _forget_file(self, key: str) -> None:
        shared = self.files.pop(key, None)
        if shared is not None:
            shared.close()

    def _allocate(self, key: str, numel: int, dtype: torch.dtype) -> torch.Tensor:
        """A flat buffer of `numel` elements (at least one)."""
        numel = max(1, numel)
        if self.device.type == "cuda":
            return torch.empty(numel, dtype=dtype, device=self.device)
        self._forget_file(key)
        self.files[key] = SharedFile(self.folder, "input", numel * torch.empty((), dtype=dtype).element_size())
        return torch.empty(numel, dtype=dtype)  # the judge's view of the slot's shape; the bytes go by pwrite

    def _describe(self, new: dict[str, torch.Tensor]) -> dict:
        if not new:
            return {}
        if self.device.type == "cuda":
            from multiprocessing.reduction import ForkingPickler

            importlib.import_module("torch.multiprocessing")  # registers the CUDA IPC reductions
            return {"cuda_ipc": base64.b64encode(bytes(ForkingPickler.dumps(new))).decode()}
        return {
            "files": {
                key: {"path": str(self.files[key].path), "dtype": str(t.dtype), "shape": list(t.shape)}
                for key, t in new.items()
            }
        }


def _same_values(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.shape != b.shape or a.dtype != b.dtype:
        return torch.zeros((), dtype=torch.bool, device=a.device)
    if not (a.is_floating_point() or a.is_complex()):
        return (a == b).all()
    return ((a == b) | (a.isnan() & b.isnan())).all()


def map_inputs(payload: dict, buffers: dict) -> dict:
    """Worker side: the inputs the solution is given (key -> tensor or value), from a payload and the flat
    buffers mapped so far (key -> buffer, updated in place)."""
    tensors = payload.get("tensors") or {}
    if "cuda_ipc" in tensors:
        importlib.import_module("torch.multiprocessing")  # registers the CUDA IPC reductions
        buffers.update(pickle.loads(base64.b64decode(tensors["cuda_ipc"])))  # from the judge only
    for key, spec in (tensors.get("files") or {}).items():
        dtype = DTYPES[spec["dtype"]]
        numel = math.prod(spec["shape"])
        storage = torch.UntypedStorage.from_file(
            spec["path"], shared=True, nbytes=numel * torch.empty((), dtype=dtype).element_size()
        )
        buffers[key] = torch.empty(0, dtype=dtype).set_(storage, 0, (numel,))
    for key in [k for k in buffers if k not in payload["shapes"]]:
        del buffers[key]
    view = {key: buffers[key][: math.prod(shape)].view(shape) for key, shape in payload["shapes"].items()}
    view.update(payload.get("values") or {})
    return {key: view[key] for key in payload["keys"]}


# ---------------------------------------------------------------------------------------------- output
class OutputMailbox:
    """CPU profile: a file the judge makes for a shape's outputs; the worker copies each output into it, and
    the judge reads it through its own mapping."""

    def __init__(self, folder: Path, dims: tuple, dtype: torch.dtype):
        self.dims, self.dtype = tuple(dims), dtype
        nbytes = max(1, math.prod(self.dims) * torch.empty((), dtype=dtype).element_size())
        self.file = SharedFile(folder, "output", nbytes)
        self.path = self.file.path
        # 0xFF is NaN in every float format: an output that was not copied shows.
        self.file.write(torch.full((nbytes,), 0xFF, dtype=torch.uint8))

    def output(self) -> torch.Tensor:
        """What the worker copied, read through the judge's descriptor (DescriptorError if cut short)."""
        out = self.file.read(self.dtype, self.dims)
        if out is None:
            raise DescriptorError("the mailbox is shorter than the output: the worker cut it short")
        return out

    def close(self) -> None:
        self.file.close()

    def spec(self) -> dict:
        return {"path": str(self.path), "dtype": str(self.dtype), "shape": list(self.dims)}


def describe_output(out, mailbox: dict | None) -> dict:
    """Worker side: what the judge needs to read `out` (the worker holds `out` until the judge has read it)."""
    if type(out) is not torch.Tensor:
        return {"type": f"{type(out).__module__}.{type(out).__qualname__}"}
    desc = {
        "type": "torch.Tensor",
        "dtype": str(out.dtype),
        "shape": list(out.shape),
        "device": out.device.type,
        "layout": str(out.layout),
    }
    if out.layout != torch.strided:
        return desc
    if out.device.type == "cuda":
        shared = out.untyped_storage()._share_cuda_()
        desc.update(
            stride=list(out.stride()),
            offset=out.storage_offset(),
            cuda_ipc=[base64.b64encode(x).decode() if isinstance(x, bytes) else x for x in shared],
        )
    elif mailbox is not None and list(out.shape) == mailbox["shape"] and str(out.dtype) == mailbox["dtype"]:
        nbytes = max(1, out.numel() * out.element_size())
        storage = torch.UntypedStorage.from_file(mailbox["path"], shared=True, nbytes=nbytes)
        torch.empty(0, dtype=out.dtype).set_(storage, 0, out.shape).copy_(out)
        desc.update(stride=[], offset=0, mailbox=mailbox["path"])
    return desc


def check_descriptor(desc: dict, dims: tuple, dtype: torch.dtype, device: torch.device) -> None:
    """The output contract (X05), judged from the worker's descriptor: raises DescriptorError."""
    if desc.get("type") != "torch.Tensor":
        raise DescriptorError(f"returned {desc.get('type')}, expected a plain torch.Tensor")
    if tuple(desc.get("shape") or ()) != tuple(dims):
        raise DescriptorError(f"shape {tuple(desc.get('shape') or ())}, expected {tuple(dims)}")
    if desc.get("dtype") != str(dtype):
        raise DescriptorError(f"dtype {desc.get('dtype')}, expected {dtype}")
    if desc.get("device") != device.type:
        raise DescriptorError(f"device {desc.get('device')}, expected {device}")
    if desc.get("layout") != str(torch.strided):
        raise DescriptorError(f"layout {desc.get('layout')}, expected a dense strided tensor")


class OutputOpener:
    """Judge side: maps the worker's outputs, each storage once (the caching allocator hands the solution
    the same blocks call after call), and checks that the described view lies inside the storage."""

    def __init__(self, device: torch.device):
        self.device = device
        self._opened: dict[tuple, torch.UntypedStorage] = {}

    def open(self, desc: dict, dtype: torch.dtype, mailbox: OutputMailbox | None = None) -> torch.Tensor:
        shape, stride, offset = desc["shape"], desc.get("stride"), desc.get("offset")
        if mailbox is not None:  # CPU profile: the judge's own mapping; the worker only says it copied there
            if desc.get("mailbox") != str(mailbox.path):
                raise DescriptorError(
                    "the output was not copied into the judge's mailbox (the descriptor names "
                    f"{str(desc.get('mailbox'))[:120]!r})"
                )
            return mailbox.output()
        shared = desc.get("cuda_ipc")
        if not (
            isinstance(shared, list)
            and len(shared) == 8
            and _ints(shape)
            and _ints(stride)
            and len(stride) == len(shape)
            and isinstance(offset, int)
            and offset >= 0
        ):
            raise DescriptorError("the output's descriptor is malformed")
        try:
            args = [base64.b64decode(x) if i in (1, 4, 6) and x is not None else x for i, x in enumerate(shared)]
        except (TypeError, ValueError):
            raise DescriptorError("the output's IPC handle is not base64") from None
        if not (isinstance(args[2], int) and isinstance(args[3], int) and args[2] >= 0 and args[3] >= 0):
            raise DescriptorError("the output's storage size or offset is not a count of bytes")
        judge_device = self.device.index if self.device.index is not None else torch.cuda.current_device()
        if args[0] != judge_device or isinstance(args[0], bool):
            raise DescriptorError(f"the output's storage is on device {str(args[0])[:20]}, not the judge's")
        # torch opens the reference-counter file the descriptor names (in /dev/shm, which the sandbox shares)
        # and writes a count at the named index when the storage is freed: only a name of the form torch
        # gives its own files, and an index inside such a file, ever reach it (red team round 2).
        if not (
            isinstance(args[4], bytes)
            and REF_COUNTER_NAME.fullmatch(args[4])
            and isinstance(args[5], int)
            and not isinstance(args[5], bool)
            and 0 <= args[5] < REF_COUNTER_FILE_ENTRIES
        ):
            raise DescriptorError("the output's reference counter is not one torch makes")
        # The judge has waited for DONE itself: it never waits on an event the worker records after it.
        args[7] = False
        itemsize = torch.empty((), dtype=dtype).element_size()
        last = offset + sum((n - 1) * s for n, s in zip(shape, stride) if n > 0) if math.prod(shape) else offset
        if any(s < 0 for s in stride) or (last + 1) * itemsize > args[2]:
            raise DescriptorError("the output's view reaches outside its storage")
        key = (args[1], args[2], args[3])
        storage = self._opened.get(key)
        if storage is None:
            try:
                storage = torch.UntypedStorage._new_shared_cuda(*args)
            except (RuntimeError, TypeError) as exc:
                raise DescriptorError(f"the output's storage could not be opened ({exc})") from None
            self._opened[key] = storage
        return torch.empty(0, dtype=dtype, device=self.device).set_(storage, offset, shape, stride)


def _ints(values) -> bool:
    return isinstance(values, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)
