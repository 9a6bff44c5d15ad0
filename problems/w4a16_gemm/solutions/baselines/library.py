"""Library line: gemlite's A16W4 GEMM (mobiusml/gemlite 0.6.0.post2, pure Python + Triton), with fp32 split-K
atomics (gemlite.set_native_atomic_bfp16(False)), the weight repacked in prepare.

Where gemlite is absent (CI, a bare machine) `import gemlite` fails and the scorer records the line as
not_available. gemlite also queries the GPU when imported (triton_kernels/utils.py reads torch.cuda's
capability and SM count, core.py picks its tuned configs by the device name), so on a machine without CUDA
its import fails too. On the GPU machine it needs the gemlite 0.6.0.post2 and tqdm wheels
(scripts/device_w4a16_line.sh installs them into a folder on PYTHONPATH); torch, triton >= 3.6 and numpy are
the image's.

Why fp32 atomics: gemlite's split-K kernels add their partial sums into the output with atomics, by default
native bf16 atomics on sm_90 (each partial sum rounded to bf16, in whatever order they land). Measured on an
H100 (lab/measurements/gemlite_visible_h100.json): with that default the line fails the problem's check at
decode_m1_70b_up (normwise 2.6e-2 against the 5e-3 bound); with fp32 partial sums and one conversion it
passes every visible shape (normwise <= 2.3e-3). set_native_atomic_bfp16 is a process-wide setting of
gemlite's, set here at import (this line is the only code in its worker).

prepare() (static, not timed) repacks: the problem's GPTQ-layout qweight is unpacked to (N, K) uint8 values
(unpack_values), which GemLiteLinearTriton.pack() packs again into (K // 8, N) int32 words, the same bits as
qweight (checked on every prepare: gemlite's 4-bit layout is GPTQ's); scales and zeros go in as transposed
views, fma_mode=False (gemlite's W_group_mode 3: (q - zero) * scale, the contract's formula, no pre-rounded
-zero * scale). State: gemlite's packed copy (K * N / 2 bytes), the caller's scales and zeros (aliased, not
copied); the (N, K) uint8 transient (K * N bytes) is freed on return. lab/gemlite_repack.py reimplements
gemlite's packing and dequantisation in pure torch, and tests/problems/test_w4a16_gemlite.py proves with it,
on the CPU, that this repack dequantises bit for bit to the problem's reference weight.

run() is gemlite's functional entry point (the custom op gemlite::forward_functional that GemLiteLinear's
forward calls), with the tensor and meta arguments built once in prepare. gemlite picks its kernel by M:
GEMV_REVSPLITK for M <= 4, GEMM_SPLITK for 5 <= M < 64, GEMM from 64 (core.get_matmul_type); its default
autotune ("fast", with its shipped configs/h100.json on an H100) runs on a new M bucket's first call
(10-15 s on an H100, outside the timed calls). Compiled kernels go to Triton's cache, TRITON_CACHE_DIR,
which the scorer points into the worker's writable cache folder; gemlite itself writes no file (its
cache_config() is never called here).
"""

import gemlite  # (ImportError, or a CUDA error on a machine without a GPU -> not_available)
import torch
from gemlite import DType, GemLiteLinearTriton, forward_functional

gemlite.set_native_atomic_bfp16(False)  # fp32 split-K partial sums: the bf16 default fails the check at M = 1

LABEL = "gemlite A16W4 (Triton), weight repacked in prepare, fp32 split-K atomics"
GROUP_SIZE = 128
W_NBITS = 4
ELEMENTS_PER_SAMPLE = 32 // W_NBITS  # 8 values per int32 word


def library_version():
    import triton

    return f"gemlite {gemlite.__version__} (triton {triton.__version__}, torch {torch.__version__})"


def unpack_values(qweight: torch.Tensor) -> torch.Tensor:
    """The problem's (K // 8, N) int32 qweight -> (N, K) uint8 values in 0..15: what gemlite's pack() takes.
    An arithmetic shift of a negative word extends its sign above the nibble; the mask drops it."""
    shifts = W_NBITS * torch.arange(ELEMENTS_PER_SAMPLE, device=qweight.device, dtype=torch.int32)
    nibbles = (qweight[:, None, :] >> shifts[None, :, None]) & 0xF  # (K // 8, 8, N): k = 8 * row + nibble
    return nibbles.reshape(-1, qweight.shape[1]).T.contiguous().to(torch.uint8)


def gemlite_pack_arguments(qweight, scales, zeros) -> dict:
    """What prepare() hands to GemLiteLinearTriton.pack(): W_q (N, K) uint8, scales and zeros (N, K // 128)
    (transposed views of the problem's tensors) and fma_mode=False (W_group_mode 3)."""
    return {"W_q": unpack_values(qweight), "scales": scales.T, "zeros": zeros.T, "fma_mode": False}


def prepare(qweight, scales, zeros):
    K, N = qweight.shape[0] * ELEMENTS_PER_SAMPLE, qweight.shape[1]
    if scales.dtype not in (torch.bfloat16, torch.float16) or zeros.dtype != scales.dtype:
        raise TypeError(
            f"gemlite line: scales and zeros must share a 16-bit float dtype, got {scales.dtype}, {zeros.dtype}"
        )
    dtype = DType.BF16 if scales.dtype == torch.bfloat16 else DType.FP16
    layer = GemLiteLinearTriton(
        W_nbits=W_NBITS,
        group_size=GROUP_SIZE,
        in_features=K,
        out_features=N,
        input_dtype=dtype,
        output_dtype=dtype,
    )
    layer.pack(**gemlite_pack_arguments(qweight, scales, zeros))
    if not torch.equal(layer.W_q, qweight):  # gemlite's 4-bit layout is GPTQ's: its words are qweight's bits
        raise RuntimeError("gemlite line: gemlite packed the weight differently from the problem's qweight")
    return {"layer": layer, "tensor_args": layer.get_tensor_args(), "meta_args": layer.get_meta_args()}


def run(state, x):
    return forward_functional(x, None, state["tensor_args"], state["meta_args"])
