"""Known wrong (X20): an 'FP8' GEMM that widens both operands to bf16 and runs bf16 wgmma.

fp8 values are exact in bf16 and the products accumulate in fp32, so the numbers pass every check; only
the tensor-pipe counters show the work ran on the bf16 path (the precision audit fails it on a GPU).
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

EXPECTED = {"cpu": "passed", "gpu": "integrity"}


@triton.jit
def _bf16_gemm(a_desc, b_desc, c_desc, a_scale_ptr, b_scale_ptr, K,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offset_m = tl.program_id(0) * BLOCK_M
    offset_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_step in range(tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([offset_m, k_step * BLOCK_K]).to(tl.float32).to(tl.bfloat16)
        b = b_desc.load([offset_n, k_step * BLOCK_K]).to(tl.float32).to(tl.bfloat16)
        acc = tl.dot(a, b.T, acc)
    scale = tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    c_desc.store([offset_m, offset_n], (acc * scale).to(tl.bfloat16))


def run(state, a, a_scale):
    b = state["b"]
    M, K = a.shape
    N = b.shape[0]
    bm, bn, bk = 128, 128, 64
    c = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    _bf16_gemm[grid](TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(b, [bn, bk]),
                     TensorDescriptor.from_tensor(c, [bm, bn]), a_scale, state["b_scale"], K,
                     BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=8, num_stages=3)
    return c
