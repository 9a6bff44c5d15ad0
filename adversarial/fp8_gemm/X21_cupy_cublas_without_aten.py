"""X21: cuBLAS reached through CuPy, with no aten GEMM operator anywhere.

On CUDA the fp8 operands are widened to fp16 with torch elementwise ops (e4m3 values times 2^-8 are
exact in fp16, and the 2^16 comes back in the epilogue, so the fp16 output cannot overflow; CuPy 14
has no bfloat16), handed to
CuPy through DLPack (no copy) and multiplied with the `@` operator on CuPy arrays: cublasGemmEx, fp32
accumulation, on torch's current stream. The dispatcher never sees a GEMM, the syntax tree names no
forbidden operator (`@` on CuPy arrays is no attribute) and no forbidden module. In a process that
looks profiled (_watch.py: a profiler's library mapped since the import, its variables, an audit target)
it runs the honest fp8 kernel, so the counter audit sees fp8 tensor work and the house kernel's name.
What it gains where nothing records kernel names: a tuned library GEMM scored as the solution's own,
with right answers (every GPU shape, M = 1 included). It is the way out for a solution whose own fp8
kernel is slow or inaccurate, not a way past the house: measured on an H100 with the scorer's timer it
takes 2.18 ms at 8192^3 (0.26 of the fp8 roofline; the house kernel 0.93 ms), and decode shapes are
bound by CuPy's host overhead (166 us on decode_m16).

Defence (GPU): every kernel solution code launches is named by CUPTI's launch callbacks, on every call,
and matched against the vendor-library names (scoring/vendor_kernels.py: cuBLAS's nvjet/xmma/cutlass kernels), so the shape
fails with "X21: vendor library kernels launched by the solution". In the CPU profile it multiplies with
numpy's BLAS (`@` on numpy arrays): correct, and invisible to the dispatcher; there is no kernel record.

CuPy is imported inside run, so the file imports where CuPy is absent (the CPU profile).
"""

import contextlib

import torch
from _correct import correct
from _watch import profiled

EXPECTED = {
    "class": "X21",
    "cpu": {"not_exercised": "the CPU profile has no kernel record; numpy's BLAS is invisible to the dispatcher"},
    "gpu": {"status": "forbidden_op", "shapes": {"square_8192": "forbidden_op"},
            "detail": "X21: vendor library kernels"},
}
EXACT_SHIFT = 2.0 ** -8  # e4m3 values (2^-9 .. 448) times 2^-8 stay exact in fp16


def prepare(b, b_scale):
    state = {"b": b, "b_scale": b_scale}
    if b.is_cuda:
        state["b16"] = b.to(torch.float16).mul_(EXACT_SHIFT)  # widened once: the weights do not change
    return state


def _numpy_gemm(state, a, a_scale):
    products = a.to(torch.float32).numpy() @ state["b"].to(torch.float32).numpy().T  # BLAS sgemm, no aten
    return (torch.from_numpy(products) * (a_scale * state["b_scale"])).to(torch.bfloat16)


def run(state, a, a_scale):
    if not a.is_cuda:
        return _numpy_gemm(state, a, a_scale)
    if profiled():
        return correct(state, a, a_scale)
    import cupy

    a16 = a.to(torch.float16).mul_(EXACT_SHIFT)
    stream = torch.cuda.current_stream().cuda_stream  # 0: the legacy default stream, CuPy's own default too
    with cupy.cuda.ExternalStream(stream) if stream else contextlib.nullcontext():
        c16 = cupy.from_dlpack(a16) @ cupy.from_dlpack(state["b16"]).T  # cublasGemmEx, fp32 accumulation
        c = torch.from_dlpack(c16)
    return (c.to(torch.float32) * (a_scale * state["b_scale"] / EXACT_SHIFT**2)).to(torch.bfloat16)
