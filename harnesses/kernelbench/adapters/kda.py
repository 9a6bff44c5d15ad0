"""Ceiling kda on a kernelbench.com 02_kda_cutlass solution (agent_solution.py beside this file).

Side by side (theirs: benchmarks/hard/problems-h100/02_kda_cutlass/{reference,check}.py):

    ours                                             theirs
    q, k  (B, T, H, K) bf16                          q, k  (B, T, H, K) bf16, forward's 1st and 2nd arguments
    v     (B, T, H, V) bf16                          v     (B, T, H, V) bf16, 3rd
    g     (B, T, H, K) fp32, per-step log-decay      g     (B, T, H, K) fp32, per-step log-decay, 4th (their
          (natural log, <= 0, not cumulative)              docstring says "in-chunk cumsum applied", but their
                                                           reference takes the cumulative sum itself: per step)
    beta  (B, T, H) bf16                             beta  (B, T, H) bf16, 5th
    scale a per-call float (0.5)                     attribute `scale` = K ** -0.5, set by their constructor
    o     (B, T, H, V) bf16: the gated delta rule with no initial state, o_t = scale * S_t^T q_t (the same
          recurrence in both: their chunked reference is exact algebra of it at chunk 64)
    B, T, H, K, V: shape of the call                 Model(B, T, H, K, V, chunk_size=64): init args
    (no weights)                                     no state dict (one non-persistent `_dummy` buffer)

The scale: o is scale times a function of (q, k, v, g, beta), and their Model keeps it as an attribute that
every published forward reads at call time (each passes `self.scale` to its kernels; none folds it in at
construction), so the adapter sets their `scale` to ours when it builds the model, and keys its models on
it: no tensor is touched for it.

prepare(): nothing to prepare (KDA has no weights). Their Model is built lazily per distinct (B, T, H, K, V,
scale), at the first call with it, as their check.py loads a solution: `Model(B, T, H, K, V, 64)`,
`.to(device)`, `.eval()`, `load_state_dict({}, strict=True)` (their reference's state dict is empty),
then `scale` set; forward under `torch.no_grad()`. Their constructors allocate at most per-shape
workspaces (one file: about 1.5 GB of zeros on the CPU at B T H = 2^20, moved to the GPU, at the first
call of a shape).

Per-call glue: none (the five tensors are handed over as they are; the call runs under torch.no_grad(),
as in their check.py, which changes no tensor and launches nothing).

Limits, where our contract is wider than theirs (a file that does not meet it fails our shape, reported as
its failure; no adapter could bridge it without per-call copies of all five inputs):
- T: theirs were multiples of 64 (their reference asserts T % 64 == 0; shapes.py says it is a
  constraint); our held-out shapes have T = 10000, 20001, 3000 and the property shapes any T in
  [100, 6000] (CPU: [1, 150]). Files that assert it raise; files that take T // 64 whole chunks leave
  the last T % 64 tokens unwritten or wrong.
- g: theirs was N(-0.05, 0.1) per step (a decay near 1, sometimes above); ours is Kimi Linear's gate
  clipped to [-5, 0]. A chunk's cumulative log-decay then reaches -320, and a kernel that forms
  exp(-cumsum g) (the factorised q e^G (k e^-G)^T form without a per-chunk reference point) overflows fp32.
- Magnitudes: theirs had q, k, v at 0.1 N(0, 1) and scale = K ** -0.5 (outputs ~1e-3, so their atol of 0.05
  admitted almost any output); ours have unit-variance q and v, L2-normalised k and scale 0.5 (outputs ~1).
- K and V: theirs were 128; ours are 128 on the GPU (32 or 64 on the CPU profile). Files that assert
  K = V = 128 fail only the CPU profile.
"""

import agent_solution
import torch
from kernelbench_their_model import build_while_importing

FAITHFUL = True
PER_CALL_GLUE = "none"
THEIR_PROBLEM = "02_kda_cutlass"

CHUNK_SIZE = 64  # their init arg (their shapes' CHUNK_SIZE, and the Model's default)


def their_init_args(q: torch.Tensor, v: torch.Tensor) -> tuple:
    """Their Model(B, T, H, K, V, chunk_size) for a call on q (B, T, H, K) and v (B, T, H, V)."""
    B, T, H, K = q.shape
    return (B, T, H, K, v.shape[-1], CHUNK_SIZE)


def prepare():
    return {"models": {}}


def _model_for(state, q, v, scale):
    init_args = their_init_args(q, v)
    key = (*init_args, float(scale))
    model = state["models"].get(key)
    if model is None:
        # As their check.py builds it (no meta-device detour: there are no weights to share, and the
        # constructor's own tensors would be left on meta).
        model = agent_solution.Model(*init_args).to(q.device).eval()
        model.load_state_dict({}, strict=True)
        if not isinstance(getattr(model, "scale", None), float):
            raise TypeError("their Model keeps no float `scale` attribute for our per-call scale to reach")
        model.scale = float(scale)
        state["models"][key] = model
    return model


def run(state, q, k, v, g, beta, scale):
    model = _model_for(state, q, v, scale)
    with torch.no_grad():
        return model(q, k, v, g, beta)


def _small_call():
    """One forward of their Model on a small GPU shape (one chunk, one head)."""
    B, T, H, K, V = 1, 64, 1, 128, 128
    model = agent_solution.Model(B, T, H, K, V, CHUNK_SIZE).cuda().eval()
    q, k = (torch.randn(B, T, H, K, device="cuda").to(torch.bfloat16) for _ in range(2))
    v = torch.randn(B, T, H, V, device="cuda").to(torch.bfloat16)
    g = -torch.rand(B, T, H, K, device="cuda")
    beta = torch.rand(B, T, H, device="cuda").to(torch.bfloat16)
    return model(q, k, v, g, beta)


build_while_importing(agent_solution, _small_call)
