"""Library line candidate (not yet run on a GPU): FlashInfer's paged-KV batch decode,
flashinfer.BatchDecodeWithPagedKVCacheWrapper (flashinfer-python 0.5.0), on our cache as it is.

Same interface as solutions/baselines/library.py, plus prepare(): LABEL, library_version(), prepare(k_cache,
v_cache) -> state, run(state, q, block_table, seq_lens). Where FlashInfer is absent (CI, a bare machine)
the import below fails and the line is recorded as not_available, as kda's fla line is.

- Layout: our pool is FlashInfer's kv_layout="NHD", (num_pages, 16, Hkv, D); the wrapper gets
  (k_cache, v_cache) as a tuple of the same tensors, no copy (flashinfer_pages.paged_kv_cache).
- Paging: block_table + seq_lens -> (kv_indptr, kv_indices, kv_last_page_len), only the pages each
  sequence uses, last_page_len in 1..16 (flashinfer_pages.paged_kv_layout).
- plan() runs inside run(), every call: block_table and seq_lens are fresh inputs of every call
  (problem.py's make_inputs), and plan() reads the page counts on the host to split the work. Its cost is
  part of this line's time: one device-to-host copy of seq_lens (a synchronisation), the host-side plan,
  the copies of the page arrays to the device, then the decode kernel(s). A user of FlashInfer pays the
  same when lengths change, once per decode step; a serving stack shares that one plan among all layers of
  the step, which one call of this contract (one layer) cannot. lab/measure_flashinfer.py times run()
  alone beside this to show the difference.
- dtype: q and the cache are bf16 (q_data_type and kv_data_type); the output is bf16, as the contract's.
- Scale: sm_scale = 1 / sqrt(D), the contract's (FlashInfer's default is the same; passed explicitly).
- GQA: FlashInfer's CUDA-core decode kernel exists for G in {1, 2, 3, 4, 8} only; other G (the held-out
  qwen2_7b_g7_edges has G = 7, the property shapes draw G = 6) take its tensor-core path, which takes any
  G (flashinfer_pages.use_tensor_cores). TENSOR_CORES picks the rule.
- Kernels: flashinfer-python 0.5.0 carries no compiled kernels; the first plan() of a (dtype, D, path)
  builds them with nvcc and ninja (FlashInfer's JIT, cached under $FLASHINFER_WORKSPACE_BASE/.cache), a
  one-off cost outside the timed calls once warm-up has run.
"""

import sys
from pathlib import Path

import flashinfer  # ImportError where FlashInfer is absent -> not_available
import torch

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # flashinfer_pages.py beside this file, as scoring's import_file(folder_importable=True)
    sys.path.insert(0, _HERE)
from flashinfer_pages import paged_kv_cache, paged_kv_layout, softmax_scale, use_tensor_cores

LABEL = "FlashInfer BatchDecodeWithPagedKVCacheWrapper (plan + run per call, NHD pages in place)"
PAGE_SIZE = 16
TENSOR_CORES = "auto"  # "auto" (CUDA cores where FlashInfer has the kernel for G), "cuda_cores", "tensor_cores"
WORKSPACE_BYTES = 128 * 1024 * 1024  # FlashInfer's recommended float workspace (split-KV partial results)


def library_version():
    return f"flashinfer-python {flashinfer.__version__} BatchDecodeWithPagedKVCacheWrapper"


def prepare(k_cache, v_cache):
    """The pool as FlashInfer reads it (the same tensors) and one float workspace, zeroed as FlashInfer asks
    for its first use; the wrappers (one per path) are made at their first call, when G is known."""
    return {
        "kv": paged_kv_cache(k_cache, v_cache),
        "workspace": torch.zeros(WORKSPACE_BYTES, dtype=torch.uint8, device=k_cache.device),
        "wrappers": {},
    }


def _wrapper(state, tensor_cores):
    wrappers = state["wrappers"]
    if tensor_cores not in wrappers:
        # One workspace for both paths: a call plans and runs one wrapper before the next call plans another.
        wrappers[tensor_cores] = flashinfer.BatchDecodeWithPagedKVCacheWrapper(
            state["workspace"], "NHD", use_tensor_cores=tensor_cores
        )
    return wrappers[tensor_cores]


def plan(state, q, block_table, seq_lens, mode=TENSOR_CORES):
    """plan() for this call's pages; returns the planned wrapper."""
    _batch, H, D = q.shape
    k_cache = state["kv"][0]
    hkv = k_cache.shape[2]
    wrapper = _wrapper(state, use_tensor_cores(H // hkv, mode))
    kv_indptr, kv_indices, kv_last_page_len = paged_kv_layout(block_table, seq_lens, PAGE_SIZE)
    wrapper.plan(
        kv_indptr,
        kv_indices,
        kv_last_page_len,
        H,
        hkv,
        D,
        PAGE_SIZE,
        q_data_type=q.dtype,
        kv_data_type=k_cache.dtype,
        sm_scale=softmax_scale(D),
    )
    return wrapper


def run(state, q, block_table, seq_lens):
    return plan(state, q, block_table, seq_lens).run(q, state["kv"])
