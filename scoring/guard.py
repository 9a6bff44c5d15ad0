"""What the solution may not do while it runs: forbidden operators, and tampering with the grader.

* `ForbiddenOps` replaces the forbidden aten operators' kernels for the whole worker process at the
  dispatcher, before the solution is imported: every spelling (torch.foo, Tensor.foo, the @ operator,
  getattr aliases, names built at run time, torch.ops.aten) on every call raises `ForbiddenOpError`.
* `TamperSnapshot` captures the true callables and backend flags the grader relies on before the
  solution is imported, and reports any that the solution replaced or flipped (X11, X15).
"""

from __future__ import annotations

import contextlib
import time
import warnings

import torch


class ForbiddenOpError(RuntimeError):
    def __init__(self, op_name: str):
        self.op_name = op_name
        super().__init__(f"X21: forbidden operator aten::{op_name} called by the solution")


# Dispatch keys the refusal is registered for: always the dense backends (composite operators such as
# matmul have no backend kernel of their own until this one), and the sparse, quantised and nested keys
# where the operator has a kernel that a forbidden call could otherwise reach.
DENSE_KEYS = ("CPU", "CUDA")
OTHER_KEYS = (
    "SparseCPU",
    "SparseCUDA",
    "SparseCsrCPU",
    "SparseCsrCUDA",
    "QuantizedCPU",
    "QuantizedCUDA",
    "NestedTensorCPU",
    "NestedTensorCUDA",
)


def _refused_keys(qualified: str) -> tuple[str, ...]:
    try:
        return DENSE_KEYS + tuple(k for k in OTHER_KEYS if torch._C._dispatch_has_kernel_for_dispatch_key(qualified, k))
    except RuntimeError:  # a name the schema lists that the dispatcher does not have (einsum.sublist)
        return ()


class ForbiddenOps:
    """The problem's forbidden aten operators refused for the whole process, at the dispatcher.

    Every overload of every named operator gets a kernel for each key of `_refused_keys` that records the
    attempt and raises `ForbiddenOpError`; it replaces the backend's kernel, so no Python spelling, no
    dispatch or inference mode and no thread reaches the real one, and nothing the solution can query
    differs between checked and timed calls (docs/integrity.md, X13: no mode, no flag is switched per call).
    Operators that are not forbidden keep their kernels and pay nothing. The grader's own uses (the fp64
    reference of a checked call) run inside `suspended()`, which removes the registrations and puts them
    back (about 1 ms on the CPU). `attempts` keeps every refused call even when the solution catches the error.
    """

    def __init__(self, names: tuple[str, ...] | frozenset[str]):
        self.names = tuple(sorted(set(names)))
        self.attempts: list[str] = []
        self.missing = [name for name in self.names if getattr(torch.ops.aten, name, None) is None]
        self._registrations = self._plan()  # (operator name, overload, key): read once, replayed on install
        self._library = None

    def _plan(self) -> list[tuple[str, str, str]]:
        plan = []
        for name in self.names:
            packet = getattr(torch.ops.aten, name, None)
            for overload in packet.overloads() if packet is not None else ():
                schema = getattr(packet, overload)._schema
                qualified = name + (f".{schema.overload_name}" if schema.overload_name else "")
                plan += [(name, qualified, key) for key in _refused_keys("aten::" + qualified)]
        return plan

    def _refuse(self, name: str):
        def refuse(*args, **kwargs):
            self.attempts.append(name)
            raise ForbiddenOpError(name)

        return refuse

    def install(self) -> ForbiddenOps:
        if self._library is not None or not self.names:
            return self
        library = torch.library.Library("aten", "IMPL")
        refusals = {name: self._refuse(name) for name in self.names}
        with warnings.catch_warnings():  # "Overriding a previously registered kernel": that is the point
            warnings.simplefilter("ignore")
            for name, qualified, key in self._registrations:
                library.impl(qualified, refusals[name], key)
        self._library = library
        return self

    def uninstall(self) -> None:
        if self._library is not None:
            self._library._destroy()
            self._library = None

    @contextlib.contextmanager
    def suspended(self):
        """The grader's own computation, with the real kernels back for its duration."""
        installed = self._library is not None
        self.uninstall()
        try:
            yield
        finally:
            if installed:
                self.install()

    def take_attempts(self) -> list[str]:
        attempts, self.attempts = self.attempts, []
        return attempts


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
        objects.update(
            {
                "torch.cuda.Event": torch.cuda.Event,
                "torch.cuda.Event.elapsed_time": torch.cuda.Event.elapsed_time,
                "torch.cuda.Event.record": torch.cuda.Event.record,
                "torch.cuda.synchronize": torch.cuda.synchronize,
            }
        )
    return objects


def _backend_flags() -> dict[str, object]:
    flags = {
        "cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cuda.matmul.allow_bf16_reduced_precision_reduction": torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
        "cuda.matmul.allow_fp16_reduced_precision_reduction": torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
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
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = self.flags[
            "cuda.matmul.allow_bf16_reduced_precision_reduction"
        ]
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = self.flags[
            "cuda.matmul.allow_fp16_reduced_precision_reduction"
        ]
        torch.backends.cudnn.allow_tf32 = self.flags["cudnn.allow_tf32"]
        torch.use_deterministic_algorithms(self.flags["deterministic_algorithms"])
        torch.set_float32_matmul_precision(self.flags["float32_matmul_precision"])
