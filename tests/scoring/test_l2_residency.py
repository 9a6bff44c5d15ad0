"""X12 on the CPU: the decision on persisting-L2 readings, and the ctypes layouts it reads them with.

The readings themselves need a GPU (tests/scoring/test_gpu.py); here they are faked.
"""

import ctypes

from scoring.l2_residency import (
    CUDA_ACCESS_PROPERTY_NORMAL,
    CUDA_ACCESS_PROPERTY_PERSISTING,
    CUDA_ACCESS_PROPERTY_STREAMING,
    AccessPolicyWindow,
    PersistingL2Reading,
    StreamAttributeValue,
    residency_detail,
)

MiB = 2**20


def reading(limit_bytes=0, window_bytes=0, hit=CUDA_ACCESS_PROPERTY_NORMAL, miss=CUDA_ACCESS_PROPERTY_NORMAL):
    return PersistingL2Reading(limit_bytes, window_bytes, hit, miss)


def test_untouched_state_is_not_flagged():
    assert residency_detail(reading(), baseline_limit_bytes=0) is None
    assert residency_detail(reading(limit_bytes=4 * MiB), baseline_limit_bytes=4 * MiB) is None  # set by others


def test_a_raised_set_aside_is_x12():
    detail = residency_detail(reading(limit_bytes=30 * MiB), baseline_limit_bytes=0)
    assert detail.startswith("X12: L2 residency") and "30.0 MiB" in detail


def test_a_persisting_window_is_x12_and_a_streaming_one_is_not():
    persisting = reading(
        window_bytes=64 * MiB, hit=CUDA_ACCESS_PROPERTY_PERSISTING, miss=CUDA_ACCESS_PROPERTY_STREAMING
    )
    assert "persisting access-policy window of 64.0 MiB" in residency_detail(persisting, 0)
    streaming = reading(window_bytes=64 * MiB, hit=CUDA_ACCESS_PROPERTY_STREAMING, miss=CUDA_ACCESS_PROPERTY_STREAMING)
    assert residency_detail(streaming, 0) is None


def test_layouts_match_the_cuda_headers():
    """cudaAccessPolicyWindow: void*, size_t, float, enum, enum (32 bytes with padding on x86-64);
    cudaLaunchAttributeValue: a 64-byte union."""
    assert [name for name, _ in AccessPolicyWindow._fields_] == [
        "base_ptr",
        "num_bytes",
        "hitRatio",
        "hitProp",
        "missProp",
    ]
    assert AccessPolicyWindow.num_bytes.offset == 8 and AccessPolicyWindow.hitRatio.offset == 16
    assert AccessPolicyWindow.hitProp.offset == 20 and AccessPolicyWindow.missProp.offset == 24
    assert ctypes.sizeof(AccessPolicyWindow) == 32 and ctypes.sizeof(StreamAttributeValue) == 64
