"""Persisting-L2 state a solution may set to keep its weights in L2 across the flush (X12), and its check.

CUDA lets a process set aside part of L2 for "persisting" lines (cudaDeviceSetLimit with
cudaLimitPersistingL2CacheSize) and mark an address range of a stream's accesses as persisting (an
access-policy window, cudaStreamSetAttribute). Lines so marked survive the timer's 2x-L2 flush, so a
kernel that re-reads its weights from L2 would beat the DRAM roofline. The timer resets persisting
lines before every timed call, but the reset leaves the limit and the window in place, so the scorer
reads both before each timed call and refuses the shape if the solution raised either.

The ctypes layouts follow cuda_runtime_api.h / driver_types.h (CUDA 12 and 13):
`struct cudaAccessPolicyWindow {void *base_ptr; size_t num_bytes; float hitRatio;
enum cudaAccessProperty hitProp, missProp;}`; a stream attribute value is the union
cudaLaunchAttributeValue, 64 bytes (`char pad[64]`); cudaStreamAttributeAccessPolicyWindow is
cudaLaunchAttributeAccessPolicyWindow = 1; cudaLimitPersistingL2CacheSize = 0x06 (0x05 is the L2 fetch
granularity). Torch-free, so the decision is unit-tested on the CPU with fake readings.
"""

from __future__ import annotations

import ctypes
from typing import NamedTuple

CUDA_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
CUDA_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1
CUDA_ACCESS_PROPERTY_NORMAL, CUDA_ACCESS_PROPERTY_STREAMING, CUDA_ACCESS_PROPERTY_PERSISTING = 0, 1, 2
ATTRIBUTE_VALUE_BYTES = 64  # sizeof(cudaLaunchAttributeValue): reads must never write past our buffer


class AccessPolicyWindow(ctypes.Structure):
    _fields_ = [
        ("base_ptr", ctypes.c_void_p),
        ("num_bytes", ctypes.c_size_t),
        ("hitRatio", ctypes.c_float),
        ("hitProp", ctypes.c_int),
        ("missProp", ctypes.c_int),
    ]


class StreamAttributeValue(ctypes.Union):
    _fields_ = [("accessPolicyWindow", AccessPolicyWindow), ("pad", ctypes.c_char * ATTRIBUTE_VALUE_BYTES)]


class PersistingL2Reading(NamedTuple):
    limit_bytes: int  # the persisting-L2 set-aside (cudaDeviceGetLimit)
    window_bytes: int  # the timed stream's access-policy window size (0: none)
    window_hit_prop: int  # cudaAccessProperty of hits in the window
    window_miss_prop: int
    window_error: int = 0  # CUDA error code of the window read (0: read; the legacy stream may refuse it)


def declare_signatures(cudart: ctypes.CDLL) -> None:
    """Argument types, so a size above 2**31 is passed as size_t and not truncated to an int."""
    cudart.cudaDeviceGetLimit.argtypes = [ctypes.POINTER(ctypes.c_size_t), ctypes.c_int]
    cudart.cudaDeviceSetLimit.argtypes = [ctypes.c_int, ctypes.c_size_t]
    cudart.cudaStreamGetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(StreamAttributeValue)]
    cudart.cudaStreamSetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(StreamAttributeValue)]
    for name in ("cudaDeviceGetLimit", "cudaDeviceSetLimit", "cudaStreamGetAttribute", "cudaStreamSetAttribute"):
        getattr(cudart, name).restype = ctypes.c_int


def read_persisting_l2(cudart: ctypes.CDLL, stream_handle: int) -> PersistingL2Reading:
    """The set-aside and `stream_handle`'s window. RuntimeError if the set-aside cannot be read (the
    check then reports itself not verified); a window that cannot be read is recorded as an error code,
    since the set-aside alone already decides whether persisting lines can exist."""
    limit = ctypes.c_size_t(0)
    code = cudart.cudaDeviceGetLimit(ctypes.byref(limit), CUDA_LIMIT_PERSISTING_L2_CACHE_SIZE)
    if code != 0:
        raise RuntimeError(f"cudaDeviceGetLimit(cudaLimitPersistingL2CacheSize) returned error {code}")
    value = StreamAttributeValue()
    code = cudart.cudaStreamGetAttribute(
        ctypes.c_void_p(stream_handle), CUDA_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, ctypes.byref(value)
    )
    if code != 0:
        return PersistingL2Reading(limit.value, 0, CUDA_ACCESS_PROPERTY_NORMAL, CUDA_ACCESS_PROPERTY_NORMAL, code)
    window = value.accessPolicyWindow
    return PersistingL2Reading(limit.value, window.num_bytes, window.hitProp, window.missProp)


def residency_detail(reading: PersistingL2Reading, baseline_limit_bytes: int) -> str | None:
    """Why this reading shows the solution asking for L2 residency (X12), or None.

    `baseline_limit_bytes` is the set-aside read before the solution was imported: anything above it
    was the solution's doing. A window whose hits or misses persist is flagged; a streaming-only window
    (which keeps data out of L2) is not.
    """
    reasons = []
    if reading.limit_bytes > baseline_limit_bytes:
        reasons.append(
            f"persisting-L2 set-aside raised to {reading.limit_bytes / 2**20:.1f} MiB "
            f"(was {baseline_limit_bytes / 2**20:.1f} MiB before the solution loaded)"
        )
    persisting = CUDA_ACCESS_PROPERTY_PERSISTING in (reading.window_hit_prop, reading.window_miss_prop)
    if reading.window_bytes > 0 and persisting:
        reasons.append(
            f"a persisting access-policy window of {reading.window_bytes / 2**20:.1f} MiB on the timed stream"
        )
    if not reasons:
        return None
    return "X12: L2 residency: " + "; ".join(reasons) + " (lines kept in L2 survive the flush; not scored)"
