"""Partial work for the adversaries that skip some of it (X13, X22): the product of the first rows only.

The output is allocated for every row and the skipped rows are left unwritten: they hold whatever the
allocator's block held (a previous call's output where nothing poisons free memory, which reads as a
plausible answer; NaN where the grader poisons it). On CUDA the house kernel runs over the kept rows,
writing straight into the full output (no copy), so the skipped rows are skipped work; on the CPU the
honest broadcast-and-sum of _correct.py runs on the kept rows. Not a case.
"""

import torch
from _correct import correct, house


def kept_rows(M: int, share_skipped: float, tile: int = 1) -> int:
    """All rows but at least `share_skipped` of them (one at least), rounded down to whole row tiles of
    `tile` rows where at least one tile stays, so that the skipped rows are tiles never computed."""
    kept = M - max(1, int(M * share_skipped))
    return kept // tile * tile if kept >= tile else kept


def row_tile(state, a) -> int:
    """BLOCK_M of the house configuration for this shape (1 in the CPU profile)."""
    if not a.is_cuda:
        return 1
    return house().pick_config(a.shape[0], state["b"].shape[0], a.shape[1])["BLOCK_M"]


def first_rows(state, a, a_scale, rows: int):
    M, K = a.shape
    N = state["b"].shape[0]
    out = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    if rows <= 0:
        return out
    if not a.is_cuda:
        out[:rows] = correct(state, a[:rows], a_scale)
        return out
    house_launch(out, state, a, a_scale, rows)()
    return out


def house_launch(out, state, a, a_scale, rows: int | None = None):
    """The house kernel over the first `rows` rows of `a` (all by default), writing into `out` allocated before
    it runs (same kernel, same name, the configuration of the whole shape): descriptors built now, the launch
    returned, so that a caller chooses when it is queued."""
    h = house()
    M, K = a.shape
    N = state["b"].shape[0]
    rows = M if rows is None else rows
    cfg = dict(h.pick_config(M, N, K))
    cfg.setdefault("PROMOTE_K", cfg["BLOCK_K"])
    bm, bn, bk = cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
    a_desc = h.TensorDescriptor.from_tensor(a[:rows], [bm, bk])
    b_desc = h.TensorDescriptor.from_tensor(state["b"], [bn, bk])
    c_desc = h.TensorDescriptor.from_tensor(out[:rows], [bm, bn])
    programs = min(h.triton.cdiv(rows, bm) * h.triton.cdiv(N, bn), h._sm_count(a.device))
    kernel = h._fp8_gemm_kernel[(programs,)]
    b_scale = state["b_scale"]
    return lambda: kernel(a_desc, b_desc, c_desc, a_scale, b_scale, rows, N, K, NUM_PROGRAMS=programs, **cfg)
