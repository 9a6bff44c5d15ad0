"""The known-wrong bf16_cast kernel (problems/fp8_gemm/solutions/wrong/bf16_cast.py) for the X20
adversaries: fp8 operands widened to bf16, bf16 wgmma; and the same path under the house kernel's name, for
the adversaries whose bf16 calls must launch what the honest calls launch. Not a case."""

from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from _correct import load_once

BF16_PATH = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm" / "solutions" / "wrong" / "bf16_cast.py"


def bf16_kernel():
    return load_once(BF16_PATH, "fp8_gemm_bf16_for_adversaries")


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


def bf16_under_the_house_name(state, a, a_scale):
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
