"""House FP8 GEMM: C = (A @ B^T) * a_scale * b_scale, A (M x K) and B (N x K) float8 e4m3, C bf16.

One Triton kernel: TMA tensor descriptors load both operands K-major (the layout fp8 wgmma wants), the
products run on the tensor cores' fp8 path, both per-tensor scales are folded into one multiply in the
epilogue, and the bf16 tile is stored through TMA. Hopper's fp8 wgmma accumulates with fewer mantissa
bits than fp32, so partial sums are promoted into a true fp32 accumulator every PROMOTE_K elements of K
(`max_num_imprecise_acc`, as cuBLASLt does by default); without it, errors grow with sqrt(K) and the
largest ones exceed the problem's tolerance. The kernel is persistent (one program per SM
walking output tiles), with tiles visited in GROUP_M-row bands so that consecutive programs share
B tiles in L2. Out-of-bounds rows and columns (M, N or K not a multiple of the tile) are zero-filled
by the TMA unit on load and clipped on store, so no shape is special-cased.

Configurations are picked by a small rule from the shape (no autotuning: the choice is reproducible
and costs no warm-up), measured on an H100 (see problems/fp8_gemm/NOTES.md).
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

LABEL = "house Triton kernel (persistent, TMA, fp8 wgmma)"


@triton.jit
def _fp8_gemm_kernel(a_desc, b_desc, c_desc, a_scale_ptr, b_scale_ptr, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     GROUP_M: tl.constexpr, PROMOTE_K: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    scale = tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    tiles_per_band = GROUP_M * tiles_n
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_PROGRAMS):
        band = tile // tiles_per_band
        first_m = band * GROUP_M
        band_height = min(tiles_m - first_m, GROUP_M)
        tile_m = first_m + (tile % tiles_per_band) % band_height
        tile_n = (tile % tiles_per_band) // band_height
        offset_m = tile_m * BLOCK_M
        offset_n = tile_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k_step in range(k_steps):
            a = a_desc.load([offset_m, k_step * BLOCK_K])
            b = b_desc.load([offset_n, k_step * BLOCK_K])
            acc = tl.dot(a, b.T, acc, max_num_imprecise_acc=PROMOTE_K)
        c_desc.store([offset_m, offset_n], (acc * scale).to(tl.bfloat16))


DECODE_CONFIG = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=256, GROUP_M=1, num_warps=4, num_stages=4, PROMOTE_K=256)
SMALL_M_CONFIG = dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=128, GROUP_M=8, num_warps=4, num_stages=5, PROMOTE_K=128)
LARGE_CONFIG = dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, GROUP_M=8, num_warps=8, num_stages=3, PROMOTE_K=128)


def pick_config(M: int, N: int, K: int) -> dict:
    """Tile shape and pipeline depth by problem shape (measured on an H100: problems/fp8_gemm/NOTES.md)."""
    if M <= 64:  # decode: memory-bound on B; narrow N tiles spread B over every SM
        return DECODE_CONFIG
    if M <= 256:
        return SMALL_M_CONFIG
    return LARGE_CONFIG  # 256x128 leaves registers for the fp32 promotion accumulator


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # Triton's CPU interpreter: a few programs are enough to exercise the persistent loop


def fp8_gemm(a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor,
             config: dict | None = None, b_desc: TensorDescriptor | None = None) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[0]
    cfg = dict(config or pick_config(M, N, K))
    cfg.setdefault("PROMOTE_K", cfg["BLOCK_K"])
    c = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    bm, bn, bk = cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = b_desc or TensorDescriptor.from_tensor(b, [bn, bk])
    c_desc = TensorDescriptor.from_tensor(c, [bm, bn])
    num_tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    programs = min(num_tiles, _sm_count(a.device))
    _fp8_gemm_kernel[(programs,)](a_desc, b_desc, c_desc, a_scale, b_scale, M, N, K,
                                  NUM_PROGRAMS=programs, **cfg)
    return c


def prepare(b, b_scale):
    """One-time preparation: B's TMA descriptors for every tile shape pick_config can choose."""
    descriptors = {(c["BLOCK_N"], c["BLOCK_K"]): TensorDescriptor.from_tensor(b, [c["BLOCK_N"], c["BLOCK_K"]])
                   for c in (DECODE_CONFIG, SMALL_M_CONFIG, LARGE_CONFIG)}
    return {"b": b, "b_scale": b_scale, "b_descriptors": descriptors}


def run(state, a, a_scale):
    """Per-call entry point: A (M x K) fp8 and its scale; the state holds B (N x K), its scale, descriptors."""
    M, K = a.shape
    config = pick_config(M, state["b"].shape[0], K)
    b_desc = state["b_descriptors"][(config["BLOCK_N"], config["BLOCK_K"])]
    return fp8_gemm(a, state["b"], a_scale, state["b_scale"], config=config, b_desc=b_desc)
