"""X12 L2 residency: sets aside persisting L2 at import and marks its weight matrix persisting on the
stream it is timed on, so the weights survive the timer's flush and a weight-bound (decode) shape
could beat the DRAM roofline. Both through ctypes on the CUDA runtime torch loaded.

The layouts are written out here independently of scoring/l2_residency.py (cuda_runtime_api.h):
cudaLimitPersistingL2CacheSize = 0x06, cudaDevAttrMaxPersistingL2CacheSize = 108,
cudaDevAttrMaxAccessPolicyWindowSize = 109, cudaStreamAttributeAccessPolicyWindow = 1, and the
attribute value is a 64-byte union holding {void*, size_t, float, enum, enum}.
"""

import ctypes

import torch
from _correct import correct

EXPECTED = {
    "class": "X12",
    "cpu": {"not_exercised": "the CPU profile has no L2 set-aside and no CUDA runtime; the decision is "
                             "unit-tested in tests/scoring/test_l2_residency.py"},
    "gpu": {"status": "integrity", "detail": "X12: L2 residency",
            "shapes": {"square_8192": "integrity", "k_unaligned_6000": "integrity", "decode_m16": "integrity",
                       "mlp_up_rect": "integrity"}},
}
PERSISTING, STREAMING = 2, 1


class Window(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int)]


class AttributeValue(ctypes.Union):
    _fields_ = [("window", Window), ("pad", ctypes.c_char * 64)]


def cudart() -> ctypes.CDLL:
    with open("/proc/self/maps") as maps:
        paths = sorted({line.split()[-1] for line in maps if "libcudart.so" in line})
    if not paths:
        raise RuntimeError("libcudart is not loaded in this process")
    lib = ctypes.CDLL(paths[0])
    lib.cudaDeviceSetLimit.argtypes = [ctypes.c_int, ctypes.c_size_t]
    lib.cudaStreamSetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(AttributeValue)]
    return lib


def device_attribute(lib, attribute: int) -> int:
    value = ctypes.c_int(0)
    if lib.cudaDeviceGetAttribute(ctypes.byref(value), attribute, torch.cuda.current_device()) != 0:
        raise RuntimeError(f"cudaDeviceGetAttribute({attribute}) failed")
    return value.value


if torch.cuda.is_available():
    LIB = cudart()
    SET_ASIDE_BYTES = device_attribute(LIB, 108)
    MAX_WINDOW_BYTES = device_attribute(LIB, 109)
    if SET_ASIDE_BYTES == 0:  # MIG, or MPS without a default set-aside: the exploit cannot be attempted here
        raise RuntimeError("this device offers no persisting-L2 set-aside (cudaDevAttrMaxPersistingL2CacheSize = 0)")
    if LIB.cudaDeviceSetLimit(0x06, SET_ASIDE_BYTES) != 0:
        raise RuntimeError("cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize) failed: no L2 set-aside here")


def keep_in_l2(weight: torch.Tensor) -> None:
    value = AttributeValue()
    value.window.base_ptr = weight.data_ptr()
    value.window.num_bytes = min(weight.numel() * weight.element_size(), MAX_WINDOW_BYTES)
    value.window.hitRatio = min(1.0, SET_ASIDE_BYTES / value.window.num_bytes)
    value.window.hitProp, value.window.missProp = PERSISTING, STREAMING
    # The legacy default stream may refuse a window: the set-aside above is in force either way.
    LIB.cudaStreamSetAttribute(torch.cuda.current_stream().cuda_stream, 1, ctypes.byref(value))


def prepare(b, b_scale):
    keep_in_l2(b)
    return {"b": b, "b_scale": b_scale}


def run(state, a, a_scale):
    return correct(state, a, a_scale)
