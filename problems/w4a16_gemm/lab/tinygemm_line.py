"""The library line until issue 37 (now a lab comparison; solutions/baselines/library.py is gemlite):
PyTorch's tinygemm int4 kernel, torch._weight_int4pack_mm (CPU: its _for_cpu twin). It needs only torch, and
it is the one line here with a CPU path: lab/measure_gemlite.py times it as line `tinygemm` (and smoke-tests
itself with it on the CPU), lab/bench_gpu.py beside the house configs.

Preparation (not timed in the score) converts the problem's GPTQ-style weight to tinygemm's format:
  * the 4-bit values go to torch._convert_weight_to_int4pack (on CUDA since torch 2.5: a (N, K / 2)
    uint8 tensor, even k in the high nibble; on the CPU: a (N, K) int32 tensor), innerKTiles = 8;
  * tinygemm dequantises as (q - 8) * scale + zero, so the problem's (q - z) * s becomes
    scale = s and zero = (8 - z) * s, stored as one (K / 128, N, 2) bf16 tensor.
The per-call path is one tinygemm kernel on the bf16 activations.
"""

import torch

LABEL = "torch._weight_int4pack_mm (tinygemm), weight repacked in prepare"
GROUP_SIZE = 128
INNER_K_TILES = 8


def library_version():
    return f"torch {torch.__version__} _weight_int4pack_mm (tinygemm)"


def _unpack(qweight):
    shifts = 4 * torch.arange(8, device=qweight.device, dtype=torch.int32)
    return ((qweight[:, None, :] >> shifts[None, :, None]) & 0xF).reshape(-1, qweight.shape[1])  # (K, N) int32


def prepare(qweight, scales, zeros):
    q = _unpack(qweight).T.contiguous()  # (N, K) int32 in 0..15
    K = q.shape[1]
    inner_k_tiles = INNER_K_TILES if K % (16 * INNER_K_TILES) == 0 else 2
    scale_and_zero = torch.stack([scales.float(), (8.0 - zeros.float()) * scales.float()], dim=-1)
    scale_and_zero = scale_and_zero.to(torch.bfloat16).contiguous()  # (K / 128, N, 2)
    if qweight.is_cuda:
        q_uint8 = ((q[:, ::2] << 4) | q[:, 1::2]).to(torch.uint8)  # (N, K / 2), even k high
        try:
            packed = torch._convert_weight_to_int4pack(q_uint8, inner_k_tiles)
        except RuntimeError:  # torch < 2.5 took the unpacked (N, K) int32 values
            packed = torch._convert_weight_to_int4pack(q.to(torch.int32), inner_k_tiles)
        kernel = torch._weight_int4pack_mm
    else:
        packed = torch._convert_weight_to_int4pack_for_cpu(q.to(torch.int32), inner_k_tiles)
        kernel = torch._weight_int4pack_mm_for_cpu
    return {"packed": packed, "scale_and_zero": scale_and_zero, "kernel": kernel}


def run(state, x):
    return state["kernel"](x, state["packed"], GROUP_SIZE, state["scale_and_zero"])
