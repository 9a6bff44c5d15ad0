"""Ceiling topk on a kernelbench.com 05_topk_bitonic solution (agent_solution.py beside this file).

Side by side (theirs: benchmarks/hard/problems-h100/05_topk_bitonic/{reference,check}.py):

    ours                                             theirs
    x        (batch, n) fp32, per call               x (batch, n) fp32, forward's only argument
    k        a per-call int, 1 <= k <= 64            init arg k (and batch, n): Model(batch, n, k)
    (no weights)                                     buffer `_dummy` = zeros(1), persistent, no meaning
    out      (batch, k) int64 indices, ordered by    forward returns (values, indices): values (batch, k)
             value (largest first), NaN above +inf,  fp32 sorted descending, indices (batch, k) int64, "the
             ties broken any way                     same contract as torch.topk(largest=True, sorted=True)"
                                                     (torch.topk's order puts NaN first as well)

Both compute the same function: the k largest entries of each row, in descending order, any choice among
ties. Our answer is their second output; their values are x.gather(1, indices), which our check computes
itself, so they are dropped. Their check.py takes a tuple or a list of two, and its property stress
(benchmarks/hard/src/eval/property_stress.py) requires the indices to be a plain torch.Tensor of the
reference's dtype, int64, with no index repeated in a row: every published file returns int64 indices.

prepare(): nothing to prepare (top-k has no weights). Their Model is built lazily per distinct (batch, n,
k), at the first call with it, as their check.py loads a solution: `Model(batch, n, k)`,
`load_state_dict({"_dummy": zeros(1)}, strict=True)`, `.eval()`, forward under `torch.no_grad()`. Their
constructors only compute launch configurations and allocate per-shape output and work buffers (a few
compile their extension, or a CUDA-graph plan, at first construction or first call), so the model is
first built on the meta device with `_dummy` assigned; a constructor that leaves tensors on meta (work
buffers registered as non-persistent) is built as their check.py does instead (kernelbench_their_model).
The models live in the state of one prepare(), so a shape's models (and anything they keep alive, such
as captured CUDA graphs and the inputs they were captured on) are freed with it.

Per-call glue: none (x is handed over as it is; their (values, indices) pair is unpacked in Python and the
indices returned as they are; the call runs under torch.no_grad(), as in their check.py, which changes no
tensor and launches nothing). A view (one file returns `indices[:, :k]` of a (batch, next power of two)
buffer) is a dense strided tensor, which our output contract accepts as it is.

Limits, where our contract is wider than theirs (a file that does not meet it fails our shape, reported as
its failure: no per-call mapping can bridge a different function):
- Data: theirs was N(0, 1) (also scaled by 1e-4 and by 1e3), and on their first shape a constant row with
  one window of k + 1..32 decreasing spikes (their property stress); ours adds many exact ties (integers
  0..7), a clustered window of 4k winners, and rows 99.9% -inf where fewer than k entries are finite, so
  -inf entries must be chosen, each index once. Kernels that pad with -inf or -FLT_MAX and an index of
  -1, or mark chosen entries by overwriting them with -inf, return -1 or repeated indices there. torch.topk's contract, which their prompt names, covers these inputs.
- k: theirs were 1, 8, 16, 32 and 64; ours are any k in [1, 64] (50, 33, 40, 20, 5, ...). Files that
  instantiate only those k (a dict of kernels keyed by k, an assert) raise on the others.
- Shapes: their n reached 131072 with batch <= 128; ours reach n = 1048576 and batch 2048 (property
  shapes any batch <= 256, n in [64, 300000]). Files with per-shape tables fall back to a default plan.
- Precision: their check compares values and gathered values with atol = rtol = 1e-4; ours is exact (the
  selected values must equal the reference's sorted top-k element for element), so a kernel that orders
  two values closer than 1e-4 wrongly, or picks a near-tie below the k-th value, passes theirs and fails
  ours. Their values output costs them 4 * batch * k bytes that our roofline does not count (negligible).
Their benchmark times every call on the same input tensor; ours draws fresh inputs for every call, so
agents that capture a CUDA graph per input address or object re-capture (or run uncached) on our timed
calls: their cost, measured as it is, not an adapter effect. Outputs returned in the same preallocated
buffer on every call are fine here: our scorer checks each call's output before the next call.

Published files that fail here for reasons outside the mapping (the file is scored byte for byte): our
static audit (scoring/import_audit.py, X21) flags any attribute named like a forbidden operator, so a file
whose own extension function is called `topk` (`_ext.topk`) or that sorts a Python list (`out.sort(...)`)
is refused though it calls no torch sort or top-k. One file points Python's include directory (under
Python 3.11) at its sandbox's /workspace path before building; one imports the `ninja` package and sets
CUDA_HOME=/usr/local/cuda; every file that builds an extension needs nvcc and ninja where it is scored.
"""

import agent_solution
import torch
from kernelbench_their_model import build_their_model, build_while_importing

FAITHFUL = True
PER_CALL_GLUE = "none"
THEIR_PROBLEM = "05_topk_bitonic"


def their_init_args(x: torch.Tensor, k: int) -> tuple:
    """Their Model(batch, n, k) for a call on x (batch, n)."""
    batch, n = x.shape
    return (batch, n, int(k))


def our_indices(their_output) -> torch.Tensor:
    """Their (values, indices) pair -> our (batch, k) int64 indices (their check.py requires int64)."""
    _values, indices = their_output
    return indices


def prepare():
    return {"models": {}}


def _model_for(state, x, k):
    init_args = their_init_args(x, k)
    key = (*init_args, x.device)
    model = state["models"].get(key)
    if model is None:
        dummy = torch.zeros(1, device=x.device)  # their reference's only state: check.py loads it, strict
        model = state["models"][key] = build_their_model(agent_solution.Model, init_args, {"_dummy": dummy},
                                                         x.device)
    return model


def run(state, x, k):
    model = _model_for(state, x, k)
    with torch.no_grad():
        return our_indices(model(x))


def _small_call():
    """One forward of their Model on their reference's default shape (every file supports it)."""
    batch, n, k = 64, 8192, 8
    model = agent_solution.Model(batch, n, k).cuda().eval()
    return model(torch.randn(batch, n, device="cuda"))


build_while_importing(agent_solution, _small_call)
