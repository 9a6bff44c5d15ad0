"""Candidate library line: gemlite's A16W4 GEMM (mobiusml/gemlite 0.6.0.post2, pure Python + Triton), with
the interface of solutions/baselines/library.py (LABEL, library_version(), prepare(**weights), run(state, x)).
Prepared for issue 37, NOT YET RUN ON A GPU: nothing here claims a speed, or that it runs there.

Where gemlite is absent the import below fails (ImportError -> the scorer records not_available). gemlite also
queries the GPU when imported (triton_kernels/utils.py reads torch.cuda's capability and SM count, core.py
picks its tuned configs by the device name), so on a machine without CUDA its import fails too.

prepare() (static, not timed) is the repack of gemlite_repack.py: the problem's GPTQ-layout qweight is unpacked
to (N, K) uint8 values, which GemLiteLinearTriton.pack() packs again into (K // 8, N) int32 words, the same
bits as qweight (checked here on every prepare); scales and zeros go in as transposed views, fma_mode=False
(gemlite's W_group_mode 3: (q - zero) * scale, the contract's formula, no pre-rounded -zero * scale). State:
gemlite's packed copy (K * N / 2 bytes), the caller's scales and zeros (aliased, not copied); the (N, K)
uint8 transient (K * N bytes) is freed on return.

run() is gemlite's functional entry point (the custom op gemlite::forward_functional that GemLiteLinear's
forward calls), with the tensor and meta arguments built once in prepare. gemlite picks its kernel by M:
GEMV_REVSPLITK for M <= 4, GEMM_SPLITK for 5 <= M < 64, GEMM from 64 (core.get_matmul_type); its default
autotune ("fast", with its shipped configs/h100.json on an H100) runs on a new M bucket's first call.
The split-K kernels add their partial sums into the bf16 output with atomics (native bf16 atomics on sm_90,
utils.gpu_supports_bfloat16_atomicadd); GEMLITE_W4A16_FP32_ATOMICS=1 turns that off
(gemlite.set_native_atomic_bfp16(False): fp32 partial sums, one conversion), for measure_gemlite.py to
compare the two on accuracy and time.
"""

import importlib.util
import os
from pathlib import Path

import gemlite  # (ImportError, or a CUDA error on a machine without a GPU -> not_available)
import torch
from gemlite import DType, GemLiteLinearTriton, forward_functional

GROUP_SIZE = 128
FP32_ATOMICS = os.environ.get("GEMLITE_W4A16_FP32_ATOMICS", "0") == "1"
if FP32_ATOMICS:
    gemlite.set_native_atomic_bfp16(False)

LABEL = "gemlite A16W4 (Triton), weight repacked in prepare" + (", fp32 split-K atomics" if FP32_ATOMICS else "")

_spec = importlib.util.spec_from_file_location("w4a16_gemlite_repack", Path(__file__).with_name("gemlite_repack.py"))
repack = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(repack)


def library_version():
    return f"gemlite {gemlite.__version__} (triton {_triton_version()}, torch {torch.__version__})"


def _triton_version():
    import triton

    return triton.__version__


def prepare(qweight, scales, zeros):
    K, N = qweight.shape[0] * repack.ELEMENTS_PER_SAMPLE, qweight.shape[1]
    if scales.dtype not in (torch.bfloat16, torch.float16) or zeros.dtype != scales.dtype:
        raise TypeError(
            f"gemlite line: scales and zeros must share a 16-bit float dtype, got {scales.dtype}, {zeros.dtype}"
        )
    dtype = DType.BF16 if scales.dtype == torch.bfloat16 else DType.FP16
    layer = GemLiteLinearTriton(
        W_nbits=repack.W_NBITS,
        group_size=GROUP_SIZE,
        in_features=K,
        out_features=N,
        input_dtype=dtype,
        output_dtype=dtype,
    )
    layer.pack(**repack.gemlite_pack_arguments(qweight, scales, zeros))
    if not torch.equal(layer.W_q, qweight):  # gemlite's 4-bit layout is GPTQ's: its words are qweight's bits
        raise RuntimeError("gemlite line: gemlite packed the weight differently from the problem's qweight")
    return {"layer": layer, "tensor_args": layer.get_tensor_args(), "meta_args": layer.get_meta_args()}


def run(state, x):
    return forward_functional(x, None, state["tensor_args"], state["meta_args"])
