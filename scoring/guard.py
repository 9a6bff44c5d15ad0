"""What the solution may not do while it runs: forbidden operators, and tampering with the grader.

* `ForbiddenOpMode` is a TorchDispatchMode: every aten operator the solution's call reaches is seen
  here whatever the Python spelling (torch.foo, Tensor.foo, the @ operator, getattr aliases), and a
  forbidden one raises `ForbiddenOpError` before it runs.
* `TamperSnapshot` captures the true callables and backend flags the grader relies on before the
  solution is imported, and reports any that the solution replaced or flipped (X11, X15).
"""

from __future__ import annotations

import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class ForbiddenOpError(RuntimeError):
    def __init__(self, op_name: str):
        self.op_name = op_name
        super().__init__(f"X21: forbidden operator aten::{op_name} called by the solution")


def aten_packet_name(func) -> str:
    """'_scaled_mm' for aten._scaled_mm.default; the overload packet is what problems name."""
    return func.overloadpacket.__name__ if hasattr(func, "overloadpacket") else str(func)


class ForbiddenOpMode(TorchDispatchMode):
    """Raise on any aten operator whose packet name is in `forbidden`; remember every op seen."""

    def __init__(self, forbidden: tuple[str, ...] | frozenset[str]):
        super().__init__()
        self.forbidden = frozenset(forbidden)
        self.seen: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = aten_packet_name(func)
        self.seen.add(name)
        if name in self.forbidden:
            raise ForbiddenOpError(name)
        return func(*args, **(kwargs or {}))


def _guarded_callables() -> dict[str, object]:
    """Name -> the object the grader uses. Identity, not equality, is compared afterwards."""
    objects = {
        "time.perf_counter": time.perf_counter,
        "time.perf_counter_ns": time.perf_counter_ns,
        "torch.Tensor.to": torch.Tensor.to,
        "torch.Tensor.__sub__": torch.Tensor.__sub__,
        "torch.Tensor.abs": torch.Tensor.abs,
        "torch.isfinite": torch.isfinite,
        "torch.linalg.vector_norm": torch.linalg.vector_norm,
        "torch.matmul": torch.matmul,
        "torch.Tensor.__matmul__": torch.Tensor.__matmul__,
        "torch.randn": torch.randn,
        "torch.Generator": torch.Generator,
    }
    if torch.cuda.is_available():
        objects.update({
            "torch.cuda.Event": torch.cuda.Event,
            "torch.cuda.Event.elapsed_time": torch.cuda.Event.elapsed_time,
            "torch.cuda.Event.record": torch.cuda.Event.record,
            "torch.cuda.synchronize": torch.cuda.synchronize,
        })
    return objects


def _backend_flags() -> dict[str, object]:
    flags = {
        "cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cuda.matmul.allow_bf16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
        "cuda.matmul.allow_fp16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
    }
    return flags


class TamperSnapshot:
    """Taken before the solution is imported; `changes()` lists what differs now."""

    def __init__(self):
        self.callables = _guarded_callables()
        self.flags = _backend_flags()

    def changes(self) -> list[str]:
        now = _guarded_callables()
        replaced = [name for name, obj in self.callables.items() if now.get(name) is not obj]
        flags = _backend_flags()
        flipped = [f"{k}: {self.flags[k]!r} -> {flags[k]!r}" for k in self.flags if flags[k] != self.flags[k]]
        return [f"replaced {name}" for name in replaced] + [f"flag {f}" for f in flipped]

    def restore_flags(self) -> None:
        torch.backends.cuda.matmul.allow_tf32 = self.flags["cuda.matmul.allow_tf32"]
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = \
            self.flags["cuda.matmul.allow_bf16_reduced_precision_reduction"]
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = \
            self.flags["cuda.matmul.allow_fp16_reduced_precision_reduction"]
        torch.backends.cudnn.allow_tf32 = self.flags["cudnn.allow_tf32"]
        torch.use_deterministic_algorithms(self.flags["deterministic_algorithms"])
        torch.set_float32_matmul_precision(self.flags["float32_matmul_precision"])
