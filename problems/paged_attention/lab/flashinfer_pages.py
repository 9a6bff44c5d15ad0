"""The torch side of the FlashInfer library line (flashinfer_line.py): our contract's paging in FlashInfer's
terms, with no FlashInfer import, so that the CPU tests can check it where FlashInfer is absent.

Our contract (problem.py): block_table (B, width) int32, row b lists sequence b's pool pages in token order,
entries past ceil(seq_lens[b] / 16) are random pool pages; seq_lens (B,) int32 >= 1. FlashInfer's paged KV
(BatchDecodeWithPagedKVCacheWrapper.plan) is CSR: sequence b owns kv_indices[kv_indptr[b]:kv_indptr[b+1]],
and its last page holds kv_last_page_len[b] tokens, 1..page_size, so its length is
(pages - 1) * page_size + kv_last_page_len[b]. Only the pages a sequence uses may be listed: FlashInfer
derives the length from the page count, so a garbage entry listed would be attended to.
"""

import math

import torch

# FlashInfer 0.5.0's CUDA-core decode kernel (csrc/batch_decode.cu, DISPATCH_GQA_GROUP_SIZE in
# include/flashinfer/utils.cuh) is compiled for these query heads per KV head only; any other G fails with
# "Unsupported group_size". Its tensor-core path (use_tensor_cores=True: the batch prefill kernel with one
# query row per sequence) takes any G.
CUDA_CORE_GROUP_SIZES = (1, 2, 3, 4, 8)


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
