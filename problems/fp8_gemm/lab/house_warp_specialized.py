"""Lab candidate (issue 37): the house FP8 GEMM with Triton's Hopper warp specialisation on the large shapes.

Same contract as solutions/house.py (LABEL, prepare(b, b_scale), run(state, a, a_scale); C = (A @ B^T) * a_scale *
b_scale in bf16, fp32 promotion every PROMOTE_K <= 128 elements of K). What changes, and why (ncu on square_8192,
problems/fp8_gemm/NOTES.md): the house's two warpgroups each load, wait and multiply in turn, so 53% of their stall
cycles sit at CTA barriers and the tensor pipe is busy 63.7% of the time; cuBLASLt's kernel (92%) has a producer
warpgroup that keeps the stages full while two consumer warpgroups multiply. Triton 3.6 builds that shape from
`tl.range(..., warp_specialize=True)` on sm_90 (the pass nvidia.passes.hopper.add_hopper_warpspec, run by
backends/nvidia/compiler.py for capability 9.x): with num_warps=4 it makes one producer partition (TMA loads,
registers cut to 40 by setmaxnreg) and two consumer warpgroups (registers raised to 232), each multiplying half of
the tile's rows (the dot is split along M), 12 warps = 384 threads as cuBLASLt's. Compiled offline for sm_90 with
Triton 3.6.0 (no GPU), the 256x128x128 variant keeps maxNumImpreciseAcc = 128 on both consumers' wgmma (the
promotion adds are there), with no spills. Facts about the pass that shape this file:
- it only runs when the kernel's num_warps is 4 (any other value compiles a plain kernel, silently);
- its data partitioner splits the accumulator but not a host-built TMA descriptor, so the house's epilogue
  (c_desc.store with a [BLOCK_M, BLOCK_N] host descriptor) fails to compile ("tensor descriptor block and tensor
  types must match"); the epilogue here is a masked pointer store, or a TMA store through a descriptor made on the
  device (tl.make_tensor_descriptor), which the partitioner resizes;
- flatten=True on the same loop produces an if/else that makes the pass skip (4 warps, spills): not offered;
- 128-row-wide consumers (128x256 tiles) spill (two 64x256 fp32 accumulators with promotion), as with 8 warps.
Decode and small-M shapes keep the house's configurations and kernel path (WARP_SPECIALIZE off, host TMA store).

Variants for the sweep are named in VARIANTS; LARGE_VARIANT picks the one run() uses for M > 256. Measured on an
H100 SXM on 2026-11-28 (NOTES.md, "Warp-specialised candidate"): every ws variant tried hangs on its first launch
(killed after 40 s and after 8 minutes); the plain controls run. Kept as the record of what was tried.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

LABEL = "house Triton kernel, warp-specialised on large shapes (lab candidate, issue 37)"

EPILOGUE_HOST_TMA = 0  # the house's: c_desc built on the host; compiles only without warp specialisation
EPILOGUE_DEVICE_TMA = 1  # tl.make_tensor_descriptor in the kernel (needs triton.set_allocator for its workspace)
EPILOGUE_POINTER = 2  # masked tl.store of the bf16 tile
EPILOGUE_NAMES = {EPILOGUE_HOST_TMA: "host_tma", EPILOGUE_DEVICE_TMA: "device_tma", EPILOGUE_POINTER: "pointer"}


@triton.jit
def _fp8_gemm_tile(a_desc, b_desc, c_desc, c_out, c_ptr, scale, tile, tiles_m, tiles_n, k_steps, M, N,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                   PROMOTE_K: tl.constexpr, K_LOOP_WARP_SPECIALIZE: tl.constexpr, EPILOGUE: tl.constexpr):
    """One output tile: the K loop (warp-specialised itself on the non-persistent kernel) and the epilogue."""
    tiles_per_band = GROUP_M * tiles_n
    band = tile // tiles_per_band
    first_m = band * GROUP_M
    band_height = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (tile % tiles_per_band) % band_height
    tile_n = (tile % tiles_per_band) // band_height
    offset_m = tile_m * BLOCK_M
    offset_n = tile_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_step in tl.range(0, k_steps, warp_specialize=K_LOOP_WARP_SPECIALIZE):
        a = a_desc.load([offset_m, k_step * BLOCK_K])
        b = b_desc.load([offset_n, k_step * BLOCK_K])
        acc = tl.dot(a, b.T, acc, max_num_imprecise_acc=PROMOTE_K)
    c_tile = (acc * scale).to(tl.bfloat16)
    if EPILOGUE == 0:
        c_desc.store([offset_m, offset_n], c_tile)
    elif EPILOGUE == 1:
        c_out.store([offset_m, offset_n], c_tile)
    else:
        rows = offset_m + tl.arange(0, BLOCK_M)
        cols = offset_n + tl.arange(0, BLOCK_N)
        tl.store(c_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :], c_tile,
                 mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def _fp8_gemm_ws_kernel(a_desc, b_desc, c_desc, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        GROUP_M: tl.constexpr, PROMOTE_K: tl.constexpr, NUM_PROGRAMS: tl.constexpr,
                        WARP_SPECIALIZE: tl.constexpr, EPILOGUE: tl.constexpr, PERSISTENT: tl.constexpr = True):
    scale = tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    c_out = c_desc
    if EPILOGUE == 1:
        c_out = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    if PERSISTENT:
        # warp_specialize on the persistent loop: the producer runs ahead across tiles, so the next tile's first
        # stages load while the consumers run this tile's epilogue. (Hangs on the H100 with Triton 3.6: NOTES.md.)
        for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_PROGRAMS, warp_specialize=WARP_SPECIALIZE):
            _fp8_gemm_tile(a_desc, b_desc, c_desc, c_out, c_ptr, scale, tile, tiles_m, tiles_n, k_steps, M, N,
                           BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, PROMOTE_K, False, EPILOGUE)
    else:
        # One tile per program, the K loop warp-specialised (the simpler form of Triton's pass: no producer
        # running ahead across tiles), tried after the persistent form hung.
        _fp8_gemm_tile(a_desc, b_desc, c_desc, c_out, c_ptr, scale, tl.program_id(0), tiles_m, tiles_n, k_steps,
                       M, N, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, PROMOTE_K, WARP_SPECIALIZE, EPILOGUE)


def _ws(BLOCK_M, BLOCK_N, BLOCK_K, num_stages, EPILOGUE=EPILOGUE_POINTER, GROUP_M=8):
    # num_warps=4 is what makes the Hopper pass run: it adds the producer and a second consumer (12 warps).
    return dict(BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, num_warps=4,
                num_stages=num_stages, PROMOTE_K=min(BLOCK_K, 128), WARP_SPECIALIZE=True, EPILOGUE=EPILOGUE)


# Shared memory per CTA, from the offline sm_90 compile (H100 limit 232448 B): ws 256x128x128 pointer s3 164064,
# s4 213224; device_tma s3 213216 (s4 262376: too much); 256x128x64 pointer s6 164184, s8 213448;
# 128x128x128 pointer s6 213336.
VARIANTS = {
    # the house's tile, warp-specialised: each consumer warpgroup owns 128x128 as in the house today
    "ws_256x128x128_s3_ptr": _ws(256, 128, 128, 3),
    "ws_256x128x128_s4_ptr": _ws(256, 128, 128, 4),
    "ws_256x128x128_s3_tma": _ws(256, 128, 128, 3, EPILOGUE=EPILOGUE_DEVICE_TMA),
    # shallower K steps, deeper ring (cuBLASLt runs 6 stages): promotion every 64 (twice the promotion adds)
    "ws_256x128x64_s6_ptr": _ws(256, 128, 64, 6),
    "ws_256x128x64_s8_ptr": _ws(256, 128, 64, 8),
    # cuBLASLt-like 128-wide tiles, six stages: consumers of 64x128, half the registers, twice the tiles
    "ws_128x128x128_s6_ptr": _ws(128, 128, 128, 6),
    # the 128x256 question, answered at compile time already (consumers spill); kept to confirm on the GPU
    "ws_128x256x64_s4_ptr": _ws(128, 256, 64, 4),
    "ws_256x128x128_s3_ptr_g16": _ws(256, 128, 128, 3, GROUP_M=16),
    # non-persistent (one tile per program, the K loop warp-specialised), after the persistent ones hung
    "ws_tile_256x128x128_s3_ptr": dict(_ws(256, 128, 128, 3), PERSISTENT=False),
    "ws_tile_128x128x128_s4_ptr": dict(_ws(128, 128, 128, 4), PERSISTENT=False),
    # controls: the house's kernel with the pointer epilogue (isolates the epilogue change), and the house itself
    "plain_256x128x128_s3_ptr": dict(_ws(256, 128, 128, 3), num_warps=8, WARP_SPECIALIZE=False),
    "plain_256x128x128_s3_host_tma": dict(_ws(256, 128, 128, 3), num_warps=8, WARP_SPECIALIZE=False,
                                          EPILOGUE=EPILOGUE_HOST_TMA),
}
LARGE_VARIANT = "ws_256x128x128_s3_ptr"

# The house's configurations for decode and small M (solutions/house.py), unchanged.
DECODE_CONFIG = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=256, GROUP_M=1, num_warps=4, num_stages=4, PROMOTE_K=256,
                     WARP_SPECIALIZE=False, EPILOGUE=EPILOGUE_HOST_TMA)
SMALL_M_CONFIG = dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=128, GROUP_M=8, num_warps=4, num_stages=5, PROMOTE_K=128,
                      WARP_SPECIALIZE=False, EPILOGUE=EPILOGUE_HOST_TMA)


def pick_config(M: int, N: int, K: int) -> dict:
    """The house's rule, with the large case taken from VARIANTS[LARGE_VARIANT]."""
    if M <= 64:
        return DECODE_CONFIG
    if M <= 256:
        return SMALL_M_CONFIG
    return VARIANTS[LARGE_VARIANT]


def check_config(config: dict) -> None:
    """The constraints the compiler does not enforce, each of which silently changes what the kernel is."""
    if config["WARP_SPECIALIZE"] and config["num_warps"] != 4:
        raise ValueError(f"house_warp_specialized: WARP_SPECIALIZE needs num_warps=4 (Triton's Hopper pass skips "
                         f"any other value without a word), got {config['num_warps']}")
    if config["WARP_SPECIALIZE"] and config["EPILOGUE"] == EPILOGUE_HOST_TMA:
        raise ValueError("house_warp_specialized: WARP_SPECIALIZE with the host TMA epilogue does not compile; "
                         "use EPILOGUE_POINTER or EPILOGUE_DEVICE_TMA")
    promote, block_k = config["PROMOTE_K"], config["BLOCK_K"]
    # A dot whose K is below max_num_imprecise_acc never promotes: that is solutions/wrong/fast_accum.py.
    if block_k % promote or (promote > 128 and block_k > promote):
        raise ValueError(f"house_warp_specialized: PROMOTE_K={promote} must divide BLOCK_K={block_k} (and be at "
                         f"most 128 unless it equals BLOCK_K, the decode case) so every dot promotes")


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # Triton's CPU interpreter: a few programs are enough to exercise the persistent loop


def _workspace(size: int, alignment: int, stream):
    # device-made TMA descriptors live in a global workspace that Triton asks the allocator for
    return torch.empty(size, dtype=torch.int8, device="cuda")


def fp8_gemm(a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor,
             config: dict | None = None, b_desc: TensorDescriptor | None = None):
    """C = (A @ B^T) * a_scale * b_scale; returns (C, the launch's compiled kernel: registers, spills, TTGIR)."""
    M, K = a.shape
    N = b.shape[0]
    cfg = dict(config or pick_config(M, N, K))
    check_config(cfg)
    c = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    bm, bn, bk = cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = b_desc or TensorDescriptor.from_tensor(b, [bn, bk])
    c_desc = TensorDescriptor.from_tensor(c, [bm, bn]) if cfg["EPILOGUE"] == EPILOGUE_HOST_TMA else None
    if cfg["EPILOGUE"] == EPILOGUE_DEVICE_TMA and a.device.type == "cuda":
        triton.set_allocator(_workspace)
    num_tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    programs = min(num_tiles, _sm_count(a.device)) if cfg.get("PERSISTENT", True) else num_tiles
    compiled = _fp8_gemm_ws_kernel[(programs,)](a_desc, b_desc, c_desc, c, a_scale, b_scale, M, N, K,
                                                NUM_PROGRAMS=programs, **cfg)
    return c, compiled


def prepare(b, b_scale):
    """One-time preparation: B's TMA descriptors for every tile shape the rule or a variant can choose."""
    configs = [DECODE_CONFIG, SMALL_M_CONFIG, *VARIANTS.values()]
    descriptors = {(c["BLOCK_N"], c["BLOCK_K"]): TensorDescriptor.from_tensor(b, [c["BLOCK_N"], c["BLOCK_K"]])
                   for c in configs}
    return {"b": b, "b_scale": b_scale, "b_descriptors": descriptors}


def run(state, a, a_scale):
    """Per-call entry point: A (M x K) fp8 and its scale; the state holds B (N x K), its scale, descriptors."""
    M, K = a.shape
    config = pick_config(M, state["b"].shape[0], K)
    b_desc = state["b_descriptors"][(config["BLOCK_N"], config["BLOCK_K"])]
    return fp8_gemm(a, state["b"], a_scale, state["b_scale"], config=config, b_desc=b_desc)[0]
