"""RESIDUAL (X20 + X13), expected to succeed: bf16 wgmma on every call except the one the counter audit
profiles (found in the grader's frames, as X13_other_kernels_on_the_audited_call.py does), with the bf16
kernel given the house fp8 kernel's name, `_fp8_gemm_kernel`.

Launches are recorded by name, so the profiled call and the timed calls launched "the same kernels" and
the profiled_call_representative audit passes; the tensor_precision audit sees the fp8 kernel on the call
it profiled. The counters that would show the bf16 path on the timed calls cannot be read on every call
(a profiled call is replayed pass by pass), and no arrangement of the grader's Python state hides the
audited call from code in the same interpreter: docs/integrity.md lists this among the residuals. What
it buys is small on this problem (bf16 wgmma runs at half fp8's rate, so the bf16 path is slower; the gain
is passing with a kernel that is not fp8 at all), and it needs code written against the grader's
internals, which a reviewer of a submitted solution sees.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from _correct import correct
from _watch import audited_call_on_the_stack

EXPECTED = {
    "class": "X20",
    "cpu": {"not_exercised": "the CPU profile has no tensor-pipe counters and no counter audit"},
    "gpu": {"status": "passed"},
}


@triton.jit
def _fp8_gemm_kernel(a_desc, b_desc, c_desc, a_scale_ptr, b_scale_ptr, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The bf16 path of problems/fp8_gemm/solutions/wrong/bf16_cast.py under the house kernel's name."""
    offset_m = tl.program_id(0) * BLOCK_M
    offset_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_step in range(tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offset_m, k_step * BLOCK_K]).to(tl.float32).to(tl.bfloat16)
        b = b_desc.load([offset_n, k_step * BLOCK_K]).to(tl.float32).to(tl.bfloat16)
        acc = tl.dot(a, b.T, acc)
    scale = tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    c_desc.store([offset_m, offset_n], (acc * scale).to(tl.bfloat16))


def _bf16_under_the_house_name(state, a, a_scale):
    b = state["b"]
    M, K = a.shape
    N = b.shape[0]
    bm, bn, bk = 128, 128, 64
    c = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    _fp8_gemm_kernel[grid](TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b, [bn, bk]),
                           TensorDescriptor.from_tensor(c, [bm, bn]), a_scale, state["b_scale"], K,
                           BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=8, num_stages=3)
    return c


def run(state, a, a_scale):
    if not a.is_cuda or audited_call_on_the_stack():
        return correct(state, a, a_scale)
    return _bf16_under_the_house_name(state, a, a_scale)
