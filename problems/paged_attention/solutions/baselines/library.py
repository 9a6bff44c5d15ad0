"""Library line: FlashInfer's paged-KV batch decode, flashinfer.BatchDecodeWithPagedKVCacheWrapper
(flashinfer-python 0.5.0), on our cache as it is, plan() + run() in every call.

Where FlashInfer is absent (CI, a bare machine) `import flashinfer` fails and the scorer records the line as
not_available, as kda's fla line. On the GPU machine it needs the flashinfer-python 0.5.0 and apache-tvm-ffi
wheels (scripts/device_library_lines.sh installs them into a folder on PYTHONPATH), nvcc and ninja.

- Layout: our pool is FlashInfer's kv_layout="NHD", (num_pages, 16, Hkv, D); the wrapper gets
  (k_cache, v_cache) as a tuple of the same tensors, no copy (paged_kv_cache).
- Paging: block_table + seq_lens -> (kv_indptr, kv_indices, kv_last_page_len), only the pages each
  sequence uses, last_page_len in 1..16 (paged_kv_layout).
- plan() runs inside run(), every call: block_table and seq_lens are fresh inputs of every call
  (problem.py's make_inputs), and plan() reads the page counts on the host to split the work. Its cost is
  part of this line's time: one device-to-host copy of seq_lens (a synchronisation), the host-side plan,
  the copies of the page arrays to the device, then the decode kernel(s). A user of FlashInfer pays the
  same when lengths change, once per decode step; a serving stack shares that one plan among all layers of
  the step, which one call of this contract (one layer) cannot. lab/measure_flashinfer.py also times run()
  alone (plan hoisted out: not a solution of this contract, it knows the lengths before the call).
- dtype: q and the cache are bf16 (q_data_type and kv_data_type); the output is bf16, as the contract's.
- Scale: sm_scale = 1 / sqrt(D), the contract's (FlashInfer's default is the same; passed explicitly).
- GQA: FlashInfer's CUDA-core decode kernel exists for G in {1, 2, 3, 4, 8} only; other G (the held-out
  qwen2_7b_g7_edges has G = 7, the property shapes draw G = 6) take its tensor-core path, which takes any
  G (use_tensor_cores). TENSOR_CORES picks the rule.
- Kernels and where they are built: flashinfer-python 0.5.0 carries no compiled kernels; the first plan() of
  a (dtype, D, path) builds them with nvcc and ninja (9-18 s each on an H100), a one-off cost outside the
  timed calls. FlashInfer writes under $FLASHINFER_WORKSPACE_BASE/.cache/flashinfer/0.5.0/<arch>/ (default
  base: the home folder), already at `import flashinfer` (it creates the folder and opens its JIT log there).
  In the scorer's sandbox only the worker's cache folder (its HOME, one per line file's contents, kept
  between runs) and its scratch folder are writable, so the JIT cache goes to HOME/.cache/flashinfer:
  `_writable_workspace_base` drops a FLASHINFER_WORKSPACE_BASE that points at a folder this process cannot
  write (e.g. the /tmp/flashinfer-ws that scripts/device_library_lines.sh sets, read-only inside the
  sandbox) before FlashInfer reads it; a writable one is kept.

The torch-only helpers (paged_kv_layout, paged_kv_cache, softmax_scale, use_tensor_cores) are tested on the
CPU with a stand-in flashinfer module (tests/problems/test_paged_flashinfer_line.py).
"""

import math
import os
from pathlib import Path


def _can_write(folder):
    return os.access(folder, os.W_OK | os.X_OK)  # a read-only mount (EROFS) reads as not writable, root or not


def _writable_workspace_base(environ=os.environ, can_write=_can_write):
    """Remove FLASHINFER_WORKSPACE_BASE from `environ` where it names a folder this process cannot write or
    create (FlashInfer then uses the home folder); return the base FlashInfer will use."""
    base = environ.get("FLASHINFER_WORKSPACE_BASE")
    if base:
        probe = Path(base)
        while not probe.exists() and probe.parent != probe:  # the nearest folder that exists decides
            probe = probe.parent
        if can_write(probe):
            return base
        environ.pop("FLASHINFER_WORKSPACE_BASE")
    return str(Path.home())


_writable_workspace_base()
import flashinfer  # noqa: E402  (ImportError where FlashInfer is absent -> not_available)
import torch  # noqa: E402

LABEL = "FlashInfer BatchDecodeWithPagedKVCacheWrapper (plan + run per call, NHD pages in place)"
PAGE_SIZE = 16
TENSOR_CORES = "auto"  # "auto" (CUDA cores where FlashInfer has the kernel for G), "cuda_cores", "tensor_cores"
WORKSPACE_BYTES = 128 * 1024 * 1024  # FlashInfer's recommended float workspace (split-KV partial results)

# FlashInfer 0.5.0's CUDA-core decode kernel (csrc/batch_decode.cu, DISPATCH_GQA_GROUP_SIZE in
# include/flashinfer/utils.cuh) is compiled for these query heads per KV head only; any other G fails with
# "Unsupported group_size". Its tensor-core path (use_tensor_cores=True: the batch prefill kernel with one
# query row per sequence) takes any G.
CUDA_CORE_GROUP_SIZES = (1, 2, 3, 4, 8)


def library_version():
    return f"flashinfer-python {flashinfer.__version__} BatchDecodeWithPagedKVCacheWrapper"


# -- our contract's paging in FlashInfer's terms (torch only) -------------------------------------------------
# Our contract (problem.py): block_table (B, width) int32, row b lists sequence b's pool pages in token order,
# entries past ceil(seq_lens[b] / 16) are random pool pages; seq_lens (B,) int32 >= 1. FlashInfer's paged KV
# (BatchDecodeWithPagedKVCacheWrapper.plan) is CSR: sequence b owns kv_indices[kv_indptr[b]:kv_indptr[b+1]],
# and its last page holds kv_last_page_len[b] tokens, 1..page_size, so its length is
# (pages - 1) * page_size + kv_last_page_len[b]. Only the pages a sequence uses may be listed: FlashInfer
# derives the length from the page count, so a garbage entry listed would be attended to.


def paged_kv_layout(block_table, seq_lens, page_size):
    """(kv_indptr, kv_indices, kv_last_page_len), all int32, exactly the pages each sequence uses.

    kv_indptr (B + 1,) and kv_last_page_len (B,) are on the host: plan() reads both there (it copies them to
    the device itself), so computing them from a host copy of seq_lens costs one device-to-host copy per
    call, the only synchronisation; kv_indices (sum of the page counts,) stays on block_table's device,
    gathered by index with its length known on the host (no boolean mask, which would synchronise again).
    """
    lengths = seq_lens.to("cpu", torch.int64)  # the synchronisation plan() needs anyway
    B, width = block_table.shape
    if lengths.shape != (B,):
        raise ValueError(f"seq_lens has shape {tuple(seq_lens.shape)}, block_table {tuple(block_table.shape)}")
    if B and int(lengths.min()) < 1:
        raise ValueError("every sequence needs at least one token (FlashInfer's last page holds 1..page_size)")
    pages = (lengths + page_size - 1) // page_size
    if B and int(pages.max()) > width:
        raise ValueError(f"a sequence needs {int(pages.max())} pages, the block table has {width}")
    kv_indptr = torch.zeros(B + 1, dtype=torch.int64)
    kv_indptr[1:] = torch.cumsum(pages, 0)
    kv_last_page_len = (lengths - 1) % page_size + 1
    total = int(kv_indptr[-1])
    device = block_table.device
    # Entry i of kv_indices is column i - kv_indptr[row] of the row whose range holds i.
    rows = torch.repeat_interleave(torch.arange(B, device=device), pages.to(device), output_size=total)
    starts = kv_indptr[:-1].to(device)
    cols = torch.arange(total, device=device) - starts[rows]
    kv_indices = block_table[rows, cols].to(torch.int32)
    return kv_indptr.to(torch.int32), kv_indices, kv_last_page_len.to(torch.int32)


def paged_kv_cache(k_cache, v_cache):
    """Our pool in FlashInfer's kv_layout="NHD": (k_cache, v_cache), each (num_pages, page_size, Hkv, D).

    The same tensors, not copies: our layout is NHD already (problem.py says so), and run() accepts the
    pair as a tuple of 4-D tensors. Nothing is moved or converted, before or during a call.
    """
    if k_cache.shape != v_cache.shape or k_cache.dim() != 4:
        raise ValueError(f"k_cache {tuple(k_cache.shape)} and v_cache {tuple(v_cache.shape)}: want equal 4-D")
    return (k_cache, v_cache)


def softmax_scale(head_dim):
    """The contract's 1 / sqrt(D), passed to plan() as sm_scale (FlashInfer's own default is the same)."""
    return 1.0 / math.sqrt(head_dim)


def use_tensor_cores(group_size, mode="auto"):
    """FlashInfer's decode path for G query heads per KV head: "auto" takes the CUDA-core decode kernel where
    it is compiled for G and the tensor-core (prefill) kernel otherwise; "cuda_cores" / "tensor_cores" force
    one (forcing CUDA cores for another G raises here rather than inside FlashInfer)."""
    if mode == "tensor_cores":
        return True
    if mode == "cuda_cores":
        if group_size not in CUDA_CORE_GROUP_SIZES:
            raise ValueError(f"FlashInfer's CUDA-core decode has no kernel for G = {group_size}")
        return False
    if mode == "auto":
        return group_size not in CUDA_CORE_GROUP_SIZES
    raise ValueError(f"mode {mode!r}: want auto, cuda_cores or tensor_cores")


# -- the line ------------------------------------------------------------------------------------------------


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
