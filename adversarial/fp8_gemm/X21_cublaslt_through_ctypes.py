"""X21: cuBLASLt's FP8 GEMM called through ctypes on the libcublasLt that PyTorch already loaded, with
no aten operator, no extension and no forbidden name anywhere.

cublasLtMatmul in the layout fp8 requires (TN): cuBLASLt is column-major, so row-major C (M x N) is
column-major C^T (N x M) = B A^T with B (N x K row-major) as the transposed operand and A (M x K
row-major) as the plain one; both per-tensor scales go in as device pointers (A_SCALE / B_SCALE), fp32
accumulation, bf16 output, on torch's current stream. The numbers are cuBLASLt's, those of
torch._scaled_mm: right, and fp8 tensor work, so neither a check nor the precision audit fails it. In a
process that looks profiled (_watch.py) it runs the honest kernel, so the counter audit's kernel names
are the house's. What it gains where nothing records kernel names: cuBLASLt's speed scored as its own,
measured on an H100 with the scorer's timer: 0.77 ms against the house kernel's 0.93 ms at 8192^3,
1.38 against 1.66 ms on mlp_up_rect, 27.6 against 33.2 us on decode_m16 (every shape of the GPU
profile correct, M = 1 included; the kernels are nvjet_sm90_qqtst_*).

Defence (GPU): CUPTI's launch callbacks name every kernel solution code launches, on every call (and its
kernel activity records name them again on a random fifth of the calls); cuBLASLt's (nvjet_*, *xmma*,
cutlass) match scoring/vendor_kernels.py: "X21: vendor library kernels launched by the solution". The
CPU profile has no cuBLASLt and no kernel record.

The enum values are written out from cublasLt.h / library_types.h (CUDA 12-13): CUDA_R_32F = 0,
CUDA_R_16BF = 14, CUDA_R_8F_E4M3 = 28, CUBLAS_COMPUTE_32F = 68, CUBLASLT_MATMUL_DESC_TRANSA = 3,
TRANSB = 4, A_SCALE_POINTER = 17, B_SCALE_POINTER = 18, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
cublasLtMatmulHeuristicResult_t is {uint64 algo[8]; size_t workspaceSize; int state; float waves; int[4]}.
"""

import ctypes
import glob
import os
import sys

import torch
from _correct import correct
from _watch import profiled

EXPECTED = {
    "class": "X21",
    "cpu": {"not_exercised": "the CPU profile has no cuBLASLt to call and no kernel record"},
    "gpu": {"status": "forbidden_op", "shapes": {"square_8192": "forbidden_op"},
            "detail": "X21: vendor library kernels"},
}
R_32F, R_16BF, R_8F_E4M3, COMPUTE_32F = 0, 14, 28, 68
OP_N, OP_T = 0, 1
DESC_TRANSA, DESC_TRANSB, DESC_A_SCALE_POINTER, DESC_B_SCALE_POINTER = 3, 4, 17, 18
PREF_MAX_WORKSPACE_BYTES = 1
WORKSPACE_BYTES = 32 << 20
VOID = ctypes.c_void_p


class HeuristicResult(ctypes.Structure):
    _fields_ = [("algo", ctypes.c_uint64 * 8), ("workspace_size", ctypes.c_size_t), ("state", ctypes.c_int),
                ("waves", ctypes.c_float), ("reserved", ctypes.c_int * 4)]


def find_cublaslt() -> str:
    with open("/proc/self/maps") as maps:
        mapped = sorted({line.split()[-1] for line in maps if "libcublasLt.so" in line})
    if mapped:
        return mapped[0]
    for base in [os.path.dirname(torch.__file__), *sys.path]:
        found = sorted(glob.glob(os.path.join(base, "nvidia", "*", "lib", "libcublasLt.so*")) +
                       glob.glob(os.path.join(base, "lib", "libcublasLt.so*")))
        if found:
            return found[-1]
    raise RuntimeError("libcublasLt not found")


class CublasLt:
    def __init__(self):
        lib = self.lib = ctypes.CDLL(find_cublaslt())
        lib.cublasLtMatrixLayoutCreate.argtypes = [ctypes.POINTER(VOID), ctypes.c_int, ctypes.c_uint64,
                                                   ctypes.c_uint64, ctypes.c_int64]
        lib.cublasLtMatmulDescSetAttribute.argtypes = [VOID, ctypes.c_int, VOID, ctypes.c_size_t]
        lib.cublasLtMatmulPreferenceSetAttribute.argtypes = [VOID, ctypes.c_int, VOID, ctypes.c_size_t]
        lib.cublasLtMatmulAlgoGetHeuristic.argtypes = [VOID] * 7 + [ctypes.c_int, ctypes.POINTER(HeuristicResult),
                                                                    ctypes.POINTER(ctypes.c_int)]
        lib.cublasLtMatmul.argtypes = [VOID] * 14 + [ctypes.c_size_t, VOID]
        self.handle = VOID()
        self.check("cublasLtCreate", ctypes.byref(self.handle))
        self.workspace = torch.empty(WORKSPACE_BYTES, dtype=torch.uint8, device="cuda")
        self.plans = {}

    def check(self, name, *args):
        status = getattr(self.lib, name)(*args)
        if status != 0:
            raise RuntimeError(f"{name} returned cuBLAS status {status}")

    def set_attribute(self, desc, attribute, value):
        self.check("cublasLtMatmulDescSetAttribute", desc, attribute, ctypes.byref(value), ctypes.sizeof(value))

    def layout(self, dtype, rows, cols, ld):
        layout = VOID()
        self.check("cublasLtMatrixLayoutCreate", ctypes.byref(layout), dtype, rows, cols, ld)
        return layout

    def plan(self, M, N, K):
        """Descriptor, layouts and the heuristic's first algorithm for C^T (N x M) = B (K x N)^T A (K x M)."""
        if (M, N, K) not in self.plans:
            desc = VOID()
            self.check("cublasLtMatmulDescCreate", ctypes.byref(desc), COMPUTE_32F, R_32F)
            self.set_attribute(desc, DESC_TRANSA, ctypes.c_int32(OP_T))
            self.set_attribute(desc, DESC_TRANSB, ctypes.c_int32(OP_N))
            layouts = (self.layout(R_8F_E4M3, K, N, K), self.layout(R_8F_E4M3, K, M, K),
                       self.layout(R_16BF, N, M, N), self.layout(R_16BF, N, M, N))
            preference = VOID()
            self.check("cublasLtMatmulPreferenceCreate", ctypes.byref(preference))
            workspace = ctypes.c_uint64(WORKSPACE_BYTES)
            self.check("cublasLtMatmulPreferenceSetAttribute", preference, PREF_MAX_WORKSPACE_BYTES,
                       ctypes.byref(workspace), ctypes.sizeof(workspace))
            result, count = HeuristicResult(), ctypes.c_int(0)
            self.check("cublasLtMatmulAlgoGetHeuristic", self.handle, desc, *layouts, preference, 1,
                       ctypes.byref(result), ctypes.byref(count))
            if count.value < 1:
                raise RuntimeError(f"cuBLASLt has no fp8 algorithm for M={M} N={N} K={K}")
            self.plans[(M, N, K)] = (desc, layouts, result)
        return self.plans[(M, N, K)]

    def fp8_gemm(self, a, b, a_scale, b_scale):
        M, K = a.shape
        N = b.shape[0]
        desc, (a_layout, b_layout, c_layout, d_layout), result = self.plan(M, N, K)
        out = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
        self.set_attribute(desc, DESC_A_SCALE_POINTER, VOID(b_scale.data_ptr()))  # cuBLASLt's A is our B
        self.set_attribute(desc, DESC_B_SCALE_POINTER, VOID(a_scale.data_ptr()))
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        self.check("cublasLtMatmul", self.handle, desc, ctypes.byref(alpha), b.data_ptr(), a_layout, a.data_ptr(),
                   b_layout, ctypes.byref(beta), out.data_ptr(), c_layout, out.data_ptr(), d_layout,
                   ctypes.byref(result), self.workspace.data_ptr(), WORKSPACE_BYTES,  # the algo leads the result
                   torch.cuda.current_stream().cuda_stream)
        return out


_lt = []


def run(state, a, a_scale):
    if not a.is_cuda or profiled():
        return correct(state, a, a_scale)
    if not _lt:
        _lt.append(CublasLt())
    return _lt[0].fp8_gemm(a, state["b"], a_scale, state["b_scale"])
