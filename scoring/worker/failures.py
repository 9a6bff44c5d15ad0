"""What an exception raised by the solution's code means: a status, a detail, and whether the worker
process can go on (a host-side exception) or the next shape needs a fresh one (a device error)."""

from __future__ import annotations

import traceback

from scoring.checking import OutputContractError
from scoring.guard import ForbiddenOpError


class TamperError(Exception):
    """The solution replaced a grader callable or flipped a backend flag in the worker (X11/X15)."""


DEVICE_ERROR_TYPES = ("AcceleratorError", "OutOfMemoryError", "CudaError", "CUDARuntimeError", "CUDADriverError")
DEVICE_ERROR_TEXT = (
    "CUDA error",
    "CUDA driver error",
    "CUBLAS_STATUS",
    "CUDNN_STATUS",
    "cuDNN error",
    "illegal memory access",
    "out of memory",
    "misaligned address",
    "unspecified launch failure",
)


def status_of_exception(exc: BaseException) -> tuple[str, str, bool]:
    """(status, detail, needs a fresh process) for an exception raised by the solution's code."""
    if isinstance(exc, ForbiddenOpError):
        return "forbidden_op", str(exc), False
    if isinstance(exc, OutputContractError):
        return "incorrect", f"X05: output contract: {exc}", False
    if isinstance(exc, TamperError):
        return "integrity", f"X11/X15: tampering: {exc}", True
    # A CUDA error can leave the context unusable, and memory exhaustion the allocator in an unknown state:
    # the next shape gets a fresh process. Any other exception (an assert, an unsupported k, a compiler
    # error) is raised on the host and leaves the device as it was.
    fresh = device_error(exc)
    tail = "".join(traceback.format_exception(exc)[-6:])
    # What raised it, when the exception was raised from another (Triton's CompilationError can carry an
    # empty message of its own and the reason in its cause).
    causes, cause = [], exc.__cause__
    while cause is not None and len(causes) < 3:
        last_line = (str(cause).strip().splitlines() or [""])[-1]
        causes.append(f"caused by {type(cause).__name__}: {last_line}"[:300])
        cause = cause.__cause__
    caused = "".join(f"\n{line}" for line in causes)
    return "runtime_error", f"{type(exc).__name__}: {exc}{caused}\n{tail}", fresh


def device_error(exc: BaseException) -> bool:
    """Whether an exception, or one it was raised from, reports a device error (by type or by message: CuPy,
    Triton and extensions wrap CUDA's errors in their own RuntimeErrors)."""
    seen = 0
    while exc is not None and seen < 8:
        if type(exc).__name__ in DEVICE_ERROR_TYPES or any(text in str(exc) for text in DEVICE_ERROR_TEXT):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
