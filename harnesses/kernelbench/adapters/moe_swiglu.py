"""Ceiling moe_swiglu on a kernelbench.com 06_sonic_moe_swiglu solution (agent_solution.py beside this file).

Side by side (theirs: benchmarks/hard/problems-h100/06_sonic_moe_swiglu/{reference,check}.py):

    ours                                             theirs
    x        (T*topk, H) bf16, rows in expert order  hidden_states (T_total*K, H) bf16, forward's 1st argument
    offsets  (E+1,) int32 on the device: expert e    expert_offsets (E+1,) int32: expert e owns rows
             owns rows offsets[e]:offsets[e+1]                offsets[e]:offsets[e+1], forward's 2nd argument
    w_gate   (E, H, I) bf16                          parameter `W_gate` (E, H, I) bf16
    w_up     (E, H, I) bf16                          parameter `W_up`   (E, H, I) bf16
    out[rows of e] = silu(x_e @ w_gate[e]) * (x_e @ w_up[e]), (T*topk, I) bf16 (the same function in both)
    T, topk, H, I, E: shape of the call              Model(T_total, H, I, E, K): init args

Nothing is repacked: the weights are their parameters as they are, and the two inputs are their forward's
two arguments as they are (same dtypes, layouts, device).

Their init args hold T_total and K (top-k) separately, but a solution of ours sees only their product, the
row count of x. Their reference and every published Model use T_total and K only as T_total * K (one file
sizes its grid from T_total * K // E), so the adapter passes T_total = rows, K = 1: the product, the only
thing their code reads, is exact.

prepare(w_gate, w_up): records the weights as their state dict {"W_gate", "W_up"}. Their Model is built
lazily per distinct row count (an init arg), at the first call with it, as their check.py loads a
solution: `Model(T_total, H, I, E, K)`, `load_state_dict(state_dict, strict=True)`, `.eval()`, forward
under `torch.no_grad()`. Their constructors draw normal(0, 0.02) weights of 2 E H I bf16 elements on the
CPU (seconds at E H I = 2^29), so the model is first built on the meta device with our weights assigned
(`load_state_dict(..., assign=True)`: every row count shares the one pair); where that cannot work (a
tensor the state dict does not replace is left on meta: one file's empty `_W_pair` buffer) it is built
exactly as their check.py does (CPU, `.to(device)`, weights copied in).

Per-call glue: none (x and offsets are handed over as they are; the call runs under torch.no_grad(), as in
their check.py, which changes no tensor and launches nothing).

Limits: their check drew balanced routing (equal rows per expert) plus a few ragged property cases; ours
draws skewed routing with empty experts and a hot expert, different on every call. Files that size their
grid from the balanced mean (T_total*K // E or ceil(rows / E) rows per expert) or cache a tile schedule on
a key that does not change with the offsets (the offsets' address, or their sum) compute wrong rows on our
calls: a failure of theirs under our contract, not an adapter effect. Their shapes had H in {2048, 4096}
and I in {1024, 1536, 4096}; ours reach H = 7168 and I multiples of 64 (property shapes), and files that
special-case their three shapes take their default path there.
"""

import agent_solution
import torch
from kernelbench_their_model import build_their_model, build_while_importing

FAITHFUL = True
PER_CALL_GLUE = "none"
THEIR_PROBLEM = "06_sonic_moe_swiglu"

TOPK_AS_SEEN = 1  # their K: a solution sees only T_total * K (the rows of x), so T_total = rows and K = 1


def their_init_args(rows: int, w_gate: torch.Tensor) -> tuple:
    """Their Model(T_total, H, I, E, K) for x with `rows` rows and our (E, H, I) weights."""
    E, H, I = w_gate.shape
    return (rows, H, I, E, TOPK_AS_SEEN)


def prepare(w_gate, w_up):
    return {"buffers": {"W_gate": w_gate, "W_up": w_up}, "models": {}}


def _model_for(state, rows):
    model = state["models"].get(rows)
    if model is None:
        buffers = state["buffers"]
        model = state["models"][rows] = build_their_model(
            agent_solution.Model, their_init_args(rows, buffers["W_gate"]), buffers, buffers["W_gate"].device)
    return model


def run(state, x, offsets):
    model = _model_for(state, x.shape[0])
    with torch.no_grad():
        return model(x, offsets)


def _small_call():
    """One forward of their Model on a small GPU shape (their constructor's own weights, balanced routing)."""
    rows, H, I, E = 512, 256, 256, 4
    model = agent_solution.Model(rows, H, I, E, TOPK_AS_SEEN).cuda().eval()
    offsets = torch.arange(0, rows + 1, rows // E, dtype=torch.int32, device="cuda")
    return model(torch.randn(rows, H, device="cuda", dtype=torch.bfloat16), offsets)


build_while_importing(agent_solution, _small_call)
