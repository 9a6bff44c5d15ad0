"""X21 + robustness: on the shape whose K is not a power of two (k_unaligned_*), launches a cuBLAS GEMM
through CuPy (no aten operator: only the kernel record sees it), then raises.

Against a scorer that goes on in the same process after an exception without draining its kernel record,
the failed call's launch names are read with the next call's: the next shape (decode, honest) is refused
for a vendor kernel it never launched, and the failed one reads as a plain runtime error. Defence: when a
shape raises, the worker takes the failed call's launch names and judges them with it, and drops its
kernel records (Runner.recover): this shape is forbidden_op, and decode passes in the same process.
In the CPU profile there is no kernel record (and CuPy is not used).
"""

import contextlib

import torch
from _correct import correct

EXPECTED = {
    "class": "X21",
    "cpu": {"not_exercised": "the CPU profile has no kernel record"},
    "gpu": {"status": "forbidden_op", "shapes": {"k_unaligned_6000": "forbidden_op", "decode_m16": "passed"},
            "detail": "X21: vendor library kernels"},
}


def run(state, a, a_scale):
    k = a.shape[1]
    if k & (k - 1):
        import cupy

        stream = torch.cuda.current_stream().cuda_stream
        with cupy.cuda.ExternalStream(stream) if stream else contextlib.nullcontext():
            x = cupy.ones((256, 256), dtype=cupy.float16)
            (x @ x).sum()  # cublasGemmEx: a vendor kernel launched by this call
        raise RuntimeError("unsupported K")
    return correct(state, a, a_scale)
