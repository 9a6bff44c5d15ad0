"""Ceiling paged_attention on a kernelbench.com 03_paged_attention solution (agent_solution.py beside this file).

Side by side (theirs: benchmarks/hard/problems-h100/03_paged_attention/{reference,check}.py):

    ours                                             theirs
    k_cache, v_cache (pages, 16, Hkv, D) bf16,       kv_cache (pages, page_size, Hkv, 2D) bf16, forward's 2nd
             static (prepare's weights)                       argument: each token row packs [K | V]
    q            (B, H, D) bf16                      query       (B, H, D) bf16, 1st
    block_table  (B, ceil(max(seq_lens) / 16))       block_table (B, ceil(seq_len / page_size)) int32, 3rd
                 int32: its width is the longest
                 sequence of the call, so it changes
                 from call to call
    seq_lens     (B,) int32, ragged, >= 1            seq_lens    (B,) int32, 4th: <= seq_len (their check
                                                                 passes seq_len, and shorter lengths in
                                                                 its property cases, over the same table)
    out[b, h] = softmax(q[b, h] . K_b^T / sqrt(D)) V_b over the first seq_lens[b] tokens of the pages that
    row b of the table lists, query head h reading KV head h // (H / Hkv) (their repeat_interleave), out
    (B, H, D) bf16: the same in both
    B, H, Hkv, D: shape of the call                  Model(batch, num_heads, num_kv_heads, head_dim, seq_len,
                                                           page_size): init args (page_size = 16)
    (no weights)                                     no state dict (one non-persistent `_dummy` buffer)

The cache: their kv_cache is our two pools concatenated on the last dimension (K then V), built once.

seq_len: their Model is built for one seq_len and their check.py keeps two invariants for it, which
published forwards rely on: every length is <= seq_len (several size their splits, workspaces and grids
from it), and the table has exactly ceil(seq_len / page_size) columns (several take the table's row
stride from seq_len, not from the tensor). Our table's width varies per call, so the adapter keeps one
model per (B, H) built for the widest table seen so far, seq_len = 16 x that width, and hands it every
narrower table padded on the right to that width. One live model per shape matters: some agents keep
process-wide state keyed on (B, H, Hkv, D) only (a C++ launch context, a workspace a captured CUDA graph
points into), which models of different seq_len would overwrite under each other. The padding is page
0, a valid page: past a sequence's length a table holds arbitrary valid pages in both contracts.

prepare(k_cache, v_cache): builds their kv_cache (one concatenation, 2 x the pool's bytes written).
Their Model is built at the first call of a shape, and again whenever a call's table is wider than its
seq_len allows (a few times per shape: each new longest sequence), as their check.py loads a
solution: `Model(B, H, Hkv, D, seq_len, 16)`, `.to(device)`, `.eval()`, `load_state_dict({}, strict=True)`;
forward under `torch.no_grad()`. No meta-device detour: there are no weights to share, and constructors
allocate their own workspaces.

Per-call glue: on calls whose table is narrower than the model's, one `torch.nn.functional.pad` of the
block table (aten constant_pad_nd): B x width int32, under 100 KB on our GPU shapes, one small kernel,
a few microseconds against calls of 70-210 us at our house kernel's speed. Calls at the model's width
get none. Needed because their table width is a function of their seq_len.

Limits, where our contract is wider than theirs (a file that does not meet it fails our shape, reported as
its failure):
- Their shapes were G in {4, 8}, Hkv in {4, 8}, D in {64, 128}, all lengths equal (or shorter ones in their
  newer property cases); ours add G = 1, 2, 3, 5, 6, 7, Hkv = 1, 2, 32, lengths down to 1 and up to several
  times the mean. Dispatchers compiled for their combinations only raise on ours.
- Magnitudes: theirs had q and kv at 0.1 N(0, 1) (scores ~0.01: an almost uniform softmax, outputs
  ~0.003, so their atol of 0.02 admitted almost any output); ours have q and K at 1.6 N(0, 1) (score std
  2.56) and unit V, outputs ~0.3..1, checked against fp64 at atol 1e-2 + rtol 1.6e-2 and 5e-3 normwise.
- Their check calls forward on the same tensors every time; ours passes fresh q, table and lengths every
  call (the last call refills the previous call's tensors in place), so agents that capture a CUDA graph
  per input address or object capture again on our timed calls: their cost, measured as it is.
- Files that name a forbidden operator anywhere (an einsum fallback for unplanned shapes) are refused by
  our static audit at import, whether or not the fallback runs.
"""

import agent_solution
import torch
from kernelbench_their_model import build_while_importing

FAITHFUL = True
PER_CALL_GLUE = ("torch.nn.functional.pad (aten constant_pad_nd) of the block table to the model's width, "
                 "on calls whose table is narrower")
THEIR_PROBLEM = "03_paged_attention"

PAGE_SIZE = 16  # ours, and their page_size on every shape


def their_kv_cache(k_cache: torch.Tensor, v_cache: torch.Tensor) -> torch.Tensor:
    """Our (pages, 16, Hkv, D) K and V pools -> their (pages, 16, Hkv, 2D): each token row is [K | V]."""
    return torch.cat((k_cache, v_cache), dim=-1)


def their_init_args(q: torch.Tensor, kv_cache: torch.Tensor, table_pages: int) -> tuple:
    """Their Model(batch, num_heads, num_kv_heads, head_dim, seq_len, page_size) for tables of table_pages."""
    B, H, D = q.shape
    return (B, H, kv_cache.shape[2], D, table_pages * PAGE_SIZE, PAGE_SIZE)


def their_block_table(block_table: torch.Tensor, table_pages: int) -> torch.Tensor:
    """Our table widened on the right to table_pages columns (page 0), or as it is at that width."""
    missing = table_pages - block_table.shape[1]
    return block_table if missing == 0 else torch.nn.functional.pad(block_table, (0, missing))


def prepare(k_cache, v_cache):
    return {"kv_cache": their_kv_cache(k_cache, v_cache), "models": {}}


def _model_for(state, q, table_pages):
    """(the model's table width, their model) for this call: rebuilt, replacing the old, when it is too narrow."""
    key = tuple(q.shape[:2])
    entry = state["models"].get(key)
    if entry is not None and entry[0] >= table_pages:
        return entry
    entry = None
    state["models"].pop(key, None)  # released before the next one is built: never two alive for a shape
    model = agent_solution.Model(*their_init_args(q, state["kv_cache"], table_pages)).to(q.device).eval()
    model.load_state_dict({}, strict=True)
    state["models"][key] = (table_pages, model)
    return table_pages, model


def run(state, q, block_table, seq_lens):
    table_pages, model = _model_for(state, q, block_table.shape[1])
    with torch.no_grad():
        return model(q, state["kv_cache"], their_block_table(block_table, table_pages), seq_lens)


def _small_call():
    """One forward of their Model on a small GPU shape of theirs (G = 4, Hkv = 8, D = 128, two pages)."""
    B, Hkv, G, D, pages = 2, 8, 4, 128, 2
    kv_cache = torch.randn(2 * B * pages, PAGE_SIZE, Hkv, 2 * D, device="cuda").to(torch.bfloat16)
    q = torch.randn(B, G * Hkv, D, device="cuda").to(torch.bfloat16)
    block_table = torch.arange(B * pages, dtype=torch.int32, device="cuda").reshape(B, pages)
    seq_lens = torch.full((B,), pages * PAGE_SIZE - 3, dtype=torch.int32, device="cuda")
    model = agent_solution.Model(*their_init_args(q, kv_cache, pages)).cuda().eval()
    return model(q, kv_cache, block_table, seq_lens)


build_while_importing(agent_solution, _small_call)
