"""Ceiling fp8_gemm on a kernelbench.com 01_fp8_gemm solution (agent_solution.py beside this file).

Side by side (theirs: benchmarks/hard/problems-h100/01_fp8_gemm/{reference,check}.py):

    ours                                        theirs
    a        (M, K) float8_e4m3fn, per call     x        (M, K) float8_e4m3fn, forward's only argument
    a_scale  0-dim float32, per call            (none: their x carries no scale)
    b        (N, K) float8_e4m3fn, static       buffer `weight`       (N, K) float8_e4m3fn
    b_scale  0-dim float32, static              buffer `weight_scale` (N,) float32, per output channel
    C = (a @ b^T) * a_scale * b_scale, bf16     y = ((x @ weight^T) * weight_scale).to(bf16), (M, N)
    M, N, K: shape of the call                  Model(M, N, K): init args

Our per-tensor scales are their per-channel scale with every channel equal to a_scale * b_scale, so
`weight_scale[n] = a_scale * b_scale` computes our C exactly as their contract defines it (fp32 scale
times the fp32 accumulator, rounded once to bf16). a_scale is fresh every call, hence the per-call glue.

prepare(b, b_scale): keeps b as their `weight` and makes a (N,) float32 `weight_scale` (filled with
b_scale until the first call). Their Model is built lazily per distinct M (an init arg; some agents read
self.M in forward), at the first call with that M, as their check.py loads a solution:
`Model(M, N, K)`, `load_state_dict(state_dict, strict=True)`, `.eval()`, forward under `torch.no_grad()`.
Their constructors draw a random (N, K) weight on the CPU (seconds at N*K = 2^28), so the model is first
built on the meta device and the buffers assigned (`load_state_dict(..., assign=True)`, so every M shares
the one `weight`); where that cannot work (the constructor fails on meta, or leaves tensors on meta that
the state dict does not replace, e.g. work buffers registered as non-persistent) it is built exactly as
their check.py does (on the CPU, `.to(device)`, buffers copied in).

Per-call glue: one N-element multiply, `weight_scale = b_scale * a_scale`, written in place into the
model's `weight_scale` buffer (agents that capture CUDA graphs or cache the buffer object read it by
address, so it must stay the same tensor). One kernel launch, N * 4 bytes: ~2-3 us on a GPU, against
~20 us for the M=16 decode GEMM at the roofline and ~1 ms for the large ones.

Limits: an agent that caches something derived from `weight_scale` at its first forward (none of the 20
published H100 files does) would keep the first call's a_scale and fail our checks; their check never
changes weight_scale between calls, ours must (a_scale is an input).
Their benchmark times every call on the same input tensors; ours draws fresh inputs for every call, so
agents that cache a CUDA graph or a launch descriptor per input address or object re-bind (or run
uncached) on our timed calls: their cost, measured as it is, not an adapter effect. A constructor that
creates a module-level tensor while it runs on the meta device would leave that tensor on meta (none of
the published files does). Two of the published files are not valid Python: the published text is their
solution.py with a CUDA sidecar file appended after a `# ===== sidecar: NAME ...` line; unsplit, it
fails at import here (splitting it back into two files is the importer's business, not the adapter's).
"""

import agent_solution
import torch
from kernelbench_their_model import build_their_model, build_while_importing

FAITHFUL = True
PER_CALL_GLUE = "torch.mul(b_scale_row, a_scale, out=weight_scale): one N-element fp32 multiply per call"
THEIR_PROBLEM = "01_fp8_gemm"


def prepare(b, b_scale):
    N, K = b.shape
    b_scale_row = b_scale.expand(N)  # a view: the glue multiplies it into the (N,) buffer
    return {"N": N, "K": K, "weight": b, "weight_scale": b_scale_row.contiguous(), "b_scale_row": b_scale_row,
            "models": {}}


def _model_for(state, M):
    entry = state["models"].get(M)
    if entry is None:
        model = build_their_model(agent_solution.Model, (M, state["N"], state["K"]),
                                  {"weight": state["weight"], "weight_scale": state["weight_scale"]},
                                  state["weight"].device)
        entry = state["models"][M] = (model, model._buffers["weight_scale"])
    return entry


def run(state, a, a_scale):
    model, weight_scale = _model_for(state, a.shape[0])
    torch.mul(state["b_scale_row"], a_scale, out=weight_scale)
    with torch.no_grad():
        return model(a)


def _small_call():
    """One forward of their Model on a small GPU shape (their constructor's own weights)."""
    M, N, K = 128, 256, 256
    model = agent_solution.Model(M, N, K).cuda().eval()
    return model(torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn))


build_while_importing(agent_solution, _small_call)
