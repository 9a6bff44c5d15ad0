"""Ceiling w4a16_gemm on a kernelbench.com 07_w4a16_gemm solution (agent_solution.py beside this file).

Side by side (theirs: benchmarks/hard/problems-h100/07_w4a16_gemm/{reference,check}.py):

    ours                                             theirs
    x        (M, K) bf16, per call                   x       (M, K) bf16, forward's only argument
    qweight  (K/8, N) int32, GPTQ: q[k, n] in        buffer `w_q` (K/2, N) uint8: q[k, n] in the low nibble
             nibble k % 8 of word k // 8                      of byte k // 2 for even k, the high for odd k
    scales   (K/128, N) bf16                         buffer `scales` (K/group, N) bf16, group = 128
    zeros    (K/128, N) bf16, integers 0..15         buffer `zeros`  (K/group, N) bf16, float zero points
    W[k, n] = (q[k, n] - zeros[k//128, n]) * scales[k//128, n], out = x @ W, (M, N) bf16 (the same in both)
    M, N, K: shape of the call                       Model(M, N, K, group_size=128): init args

The two packings hold the same nibbles in the same order: byte i (0..3, least significant first) of our
word r is q[8r + 2i] | q[8r + 2i + 1] << 4, which is their byte 4r + i. So their w_q[4r + i, n] =
(qweight[r, n] >> 8i) & 0xFF (shifts, not a reinterpretation of the int32's memory, so the host's byte
order does not matter). Scales and zeros are used as given.

prepare(qweight, scales, zeros): repacks qweight into their w_q (one elementwise pass, K*N/2 bytes out).
Their Model is built lazily per distinct M (an init arg; agents pick kernels, tiles and output buffers from
self.M), at the first call with that M, as their check.py loads a solution: `Model(M, N, K)`,
`load_state_dict(state_dict, strict=True)`, `.eval()`, forward under `torch.no_grad()`. Several of their
constructors draw and quantise a random (K, N) fp32 weight on the CPU (seconds at K*N = 2^28), so the
model is first built on the meta device and the buffers assigned (`load_state_dict(..., assign=True)`, so
every M shares one w_q); where that cannot work (the constructor fails on meta, or leaves tensors on meta
that the state dict does not replace) it is built exactly as their check.py does (on the CPU,
`.to(device)`, buffers copied in).

Per-call glue: none (x is handed over as it is; the call runs under torch.no_grad(), as in their check.py,
which changes no tensor and launches nothing).

Limits: their shapes were K = 4096 and N in {4096, 12288, 14336}; ours reach K = 29568 (not a multiple
of 256) and N multiples of 16 (64 on the GPU's property shapes). Constructors that assert more (one
asserts N % 128 == 0) fail those shapes at the first call, which our scorer reports as a runtime error of
the solution.
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
PER_CALL_GLUE = "none"
THEIR_PROBLEM = "07_w4a16_gemm"

GROUP_SIZE = 128  # ours, and their Model's default group_size


def their_w_q(qweight: torch.Tensor) -> torch.Tensor:
    """Our (K/8, N) int32 GPTQ words -> their (K/2, N) uint8 (even k in the low nibble, odd k in the high).
    Byte i of word r is their row 4r + i; the arithmetic shift of a negative word is masked off."""
    rows, N = qweight.shape
    shifts = 8 * torch.arange(4, dtype=torch.int32, device=qweight.device)
    byte_values = (qweight[:, None, :] >> shifts[None, :, None]) & 0xFF  # (K/8, 4, N)
    return byte_values.to(torch.uint8).reshape(4 * rows, N)


def prepare(qweight, scales, zeros):
    return {"N": qweight.shape[1], "K": 8 * qweight.shape[0],
            "buffers": {"w_q": their_w_q(qweight), "scales": scales, "zeros": zeros}, "models": {}}


def _model_for(state, M):
    model = state["models"].get(M)
    if model is None:
        buffers = state["buffers"]
        model = state["models"][M] = build_their_model(agent_solution.Model, (M, state["N"], state["K"]),
                                                       buffers, buffers["w_q"].device)
    return model


def run(state, x):
    model = _model_for(state, x.shape[0])
    with torch.no_grad():
        return model(x)


def _small_call():
    """One forward of their Model on a small GPU shape (their constructor's own weights)."""
    M, N, K = 16, 256, 256
    model = agent_solution.Model(M, N, K).cuda().eval()
    return model(torch.randn(M, K, device="cuda", dtype=torch.bfloat16))


build_while_importing(agent_solution, _small_call)
