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


def _meta_leftovers(model: torch.nn.Module, replaced: set) -> list[str]:
    """Names of the model's tensors still on the meta device, other than the state-dict entries `replaced`
    (buffers, parameters, and tensors kept as attributes, alone or in a list, tuple or dict)."""
    left = []
    for prefix, module in model.named_modules():
        named = list(module._buffers.items()) + list(module._parameters.items())
        for name, value in vars(module).items():
            if name not in ("_buffers", "_parameters", "_modules"):
                items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) \
                    else [value]
                named += [(name, item) for item in items]
        for name, tensor in named:
            full = f"{prefix}.{name}" if prefix else name
            if isinstance(tensor, torch.Tensor) and tensor.is_meta and full not in replaced:
                left.append(full)
    return left


def _on_meta(model_class, init_args: tuple, state_dict: dict):
    """Their Model built on the meta device with our buffers assigned, or None where that is not safe."""
    try:
        with torch.device("meta"):
            model = model_class(*init_args)
        if _meta_leftovers(model, set(state_dict)):
            return None
        model.load_state_dict(state_dict, strict=True, assign=True)
    except Exception:  # noqa: BLE001 - any failure on meta: the caller builds it their way (real errors surface)
        return None
    return None if _meta_leftovers(model, set()) else model.eval()


def build_their_model(model_class, init_args: tuple, state_dict: dict, device) -> torch.nn.Module:
    """Their Model holding our buffers: on meta where safe, else as their check.py builds it."""
    model = _on_meta(model_class, init_args, state_dict)
    if model is None:
        model = model_class(*init_args).to(device).eval()
        model.load_state_dict(state_dict, strict=True)
    return model


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
