"""The one list of vendor-library kernel names, and the X21 verdict on a set of kernel names. Torch-free.

Both witnesses of what a solution launched use it: the kernel record of every timed call in the worker
(scoring/kernel_record.py, CUPTI activity records) and the counter audit's profiled call (scoring/audit.py,
Nsight Compute). A vendor library reached with no aten call at all (cuBLASLt through ctypes or CuPy, a C++
extension linking cuBLAS, a pip-installed attention library) launches kernels with these names.

Names are matched, ignoring case, both as reported and demangled (CUPTI reports CUDA C++ kernels mangled,
`_ZN7cutlass6Kernel...`; ncu demangled), so a pattern may anchor on either form's start.
"""

from __future__ import annotations

import ctypes
import functools
import re

# cuBLAS/cuBLASLt (nvjet_*, the xmma/sm90 gemm families, gemv, split-K reductions), cuSPARSE, CUTLASS
# library instantiations, cuDNN, flash-attention (fmha, flash_fwd), FlashInfer, Marlin, and
# flash-linear-attention (fla's chunked and fused-recurrent delta-rule kernels).
VENDOR_KERNEL_PATTERNS = (
    r"^nvjet",
    r"xmma",
    r"cutlass",
    r"cublas",
    r"cusparse",
    r"^sm\d+_.*gemm",
    r"gemv2[NT]_kernel",
    r"gemvNSP",
    r"gemmSN",
    r"gemmk1_kernel",
    r"splitKreduce",
    r"cudnn",
    r"^flash_fwd",
    r"flash::",
    r"flashinfer",
    r"fmha",
    r"marlin",
    r"^ampere_.*gemm",
    r"^hopper_.*gemm",
    r"(^|_)chunk_(kda|gated_delta_rule|delta_rule)_",
    r"fused_recurrent_(kda|gated_delta_rule)",
)
_COMPILED = tuple(re.compile(p, re.IGNORECASE) for p in VENDOR_KERNEL_PATTERNS)


@functools.lru_cache(maxsize=1)
def _cxa_demangle():
    try:
        library = ctypes.CDLL("libstdc++.so.6")
    except OSError:
        return None
    function = library.__cxa_demangle
    function.restype = ctypes.c_void_p  # a malloc'd char*, freed below
    function.argtypes = (
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.POINTER(ctypes.c_int),
    )
    return function


@functools.lru_cache(maxsize=4096)
def demangle(name: str) -> str:
    """The C++ name of a mangled kernel symbol; any other name unchanged."""
    function = _cxa_demangle()
    if function is None or not name.startswith("_Z"):
        return name
    status = ctypes.c_int(0)
    pointer = function(name.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not pointer:
        return name
    try:
        return ctypes.string_at(pointer).decode(errors="replace")
    finally:
        ctypes.CDLL(None).free(ctypes.c_void_p(pointer))


def is_vendor_kernel(name: str) -> bool:
    readable = demangle(name)
    return any(p.search(readable) or p.search(name) for p in _COMPILED)


def vendor_kernels(names) -> list[str]:
    """The distinct vendor-library kernel names among `names`, demangled and sorted."""
    return sorted({demangle(name) for name in names if is_vendor_kernel(name)})


def judge(names, where: str) -> str:
    """`passed`, or `failed (X21: ...)` naming up to three vendor kernels; `where` says whose kernels."""
    vendor = vendor_kernels(names)
    if vendor:
        return f"failed (X21: vendor library kernels {where}: {', '.join(v[:80] for v in vendor[:3])})"
    return "passed"
