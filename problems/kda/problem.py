"""Kimi Delta Attention (KDA), chunked forward: inputs, reference and roofline formulas (data in problem.toml).

The per-channel gated delta rule of flash-linear-attention's KDA (fla.ops.kda, naive_recurrent_kda), per
batch b and head h, with a state S of K x V (fp32/fp64), starting at zero, for t = 0 .. T-1:

    S  <- diag(exp(g_t)) S                                  decay: g_t (K,) is this step's log-decay, <= 0
    S  <- S + beta_t k_t (v_t - S^T k_t)^T                  delta rule: write v_t over what S recalls for k_t
    o_t = scale * S^T q_t                                   read after the write

g is the per-step log-decay (not a cumulative sum; a chunked kernel takes its cumulative sums itself),
in natural-log units (fla's kernels convert to base 2 internally). Shape parameters: B, T, H, K, V.
"""

import math

import torch

from scoring.call_checks import check_finite, within_tolerance

CHUNK = 64  # the chunk length the FLOP formula counts (flash-linear-attention's, and the house kernel's)
# Decay as Kimi Linear parameterises it: g = -A * softplus(z + dt_bias), A ~ U(1, 16) per head, dt_bias
# the inverse softplus of dt ~ logU(1e-3, 1e-1) per head and channel, z ~ N(0, 1) per element; clipped to
# [G_MIN, 0] (fla's recommended lower bound for its safe-gate mode, per-step decay >= exp(-5)).
A_RANGE = (1.0, 16.0)
DT_RANGE = (1e-3, 1e-1)
G_MIN = -5.0
# The attention scale, a per-call input: 0.5 makes the outputs O(1) (std ~1) with unit-variance q, unit-norm k
# and unit-variance v (K**-0.5 = 0.088 would leave them ~0.16, too close to the tolerance's atol).
SCALE = 0.5


def flops(shape):
    """Matrix work of the chunked algorithm at chunk C = 64, per token and head: three K x V state products
    (v - W S, Q S, the state update K^T V) = 6 K V, and five C x C products of which the causal half
    counts (K K^T and Q K^T over K, T (e^G K), T V and A V): 3 C K + 2 C V."""
    B, T, H, K, V = shape["B"], shape["T"], shape["H"], shape["K"], shape["V"]
    return B * T * H * (6 * K * V + 3 * CHUNK * K + 2 * CHUNK * V)


def bytes_moved(shape):
    B, T, H, K, V = shape["B"], shape["T"], shape["H"], shape["K"], shape["V"]
    # bf16 q, k, v; fp32 g; bf16 beta; bf16 o.
    return B * T * H * (2 * K + 2 * K + 2 * V + 4 * K + 2 + 2 * V)


def output_spec(shape):
    return (shape["B"], shape["T"], shape["H"], shape["V"]), torch.bfloat16


def make_weights(shape, gen, device):
    return {}  # KDA has no static weights: everything is a per-call activation


def make_gate(shape, gen, device) -> torch.Tensor:
    B, T, H, K = shape["B"], shape["T"], shape["H"], shape["K"]
    a = torch.empty(H, 1, device=device).uniform_(*A_RANGE, generator=gen)
    log_dt = torch.empty(H, K, device=device).uniform_(math.log(DT_RANGE[0]), math.log(DT_RANGE[1]), generator=gen)
    dt_bias = torch.log(torch.expm1(torch.exp(log_dt)))  # softplus(dt_bias) = dt
    z = torch.randn((B, T, H, K), generator=gen, device=device)
    return (-a * torch.nn.functional.softplus(z + dt_bias)).clamp_(min=G_MIN)


def make_inputs(shape, weights, gen, device):
    B, T, H, K, V = shape["B"], shape["T"], shape["H"], shape["K"], shape["V"]
    q = torch.randn((B, T, H, K), generator=gen, device=device)  # unit variance: outputs come out O(1)
    k = torch.nn.functional.normalize(torch.randn((B, T, H, K), generator=gen, device=device), dim=-1)
    v = torch.randn((B, T, H, V), generator=gen, device=device)
    g = make_gate(shape, gen, device)
    beta = torch.sigmoid(torch.randn((B, T, H), generator=gen, device=device))
    return {"q": q.to(torch.bfloat16), "k": k.to(torch.bfloat16), "v": v.to(torch.bfloat16), "g": g,
            "beta": beta.to(torch.bfloat16), "scale": SCALE}


def recurrent_kda(q, k, v, g, beta, scale, dtype=torch.float64):
    """The recurrent form above, step by step in `dtype`; returns (o in dtype, final state (B, H, K, V))."""
    B, T, H, K = q.shape
    V = v.shape[-1]
    q, k, v, g, beta = (x.to(dtype) for x in (q, k, v, g, beta))
    decay = g.exp()
    state = torch.zeros((B, H, K, V), dtype=dtype, device=q.device)
    o = torch.empty((B, T, H, V), dtype=dtype, device=q.device)
    for t in range(T):
        state.mul_(decay[:, t, :, :, None])
        recalled = (k[:, t, :, :, None] * state).sum(-2)
        state.add_((beta[:, t, :, None] * k[:, t])[..., None] * (v[:, t] - recalled)[:, :, None, :])
        o[:, t] = (q[:, t, :, :, None] * state).sum(-2) * scale
    return o, state


def chunked_kda(q, k, v, g, beta, scale, chunk=CHUNK, dtype=torch.float64):
    """The same recurrence, evaluated a chunk of `chunk` steps at a time in `dtype` (exact algebra, not an
    approximation: equal to recurrent_kda up to fp64 rounding, tests/problems/test_kda_reference.py). Within a
    chunk, with G the inclusive cumulative sum of g from the chunk's start and S0 the state before it, the
    delta-rule writes u_t (V,) solve the unit lower-triangular system
        u_t + beta_t sum_{j<t} A_tj u_j = beta_t (v_t - (k_t * exp(G_t))^T S0),  A_tj = sum_c k_tc k_jc exp(G_tc - G_jc)
    and o_t = scale ((q_t * exp(G_t))^T S0 + sum_{j<=t} (sum_c q_tc k_jc exp(G_tc - G_jc)) u_j),
    S_end = exp(G_last) * S0 + sum_j (k_j * exp(G_last - G_j)) u_j^T.
    Every exponent is <= 0 (pairs j > t are masked to -inf before exp), so nothing overflows however strong
    the decay. Why: the step-by-step form launches ~8 kernels per token (260k for a 32k-token shape, seconds
    of launches per reference, and as many CUPTI records to read); this launches ~15 per chunk of 64."""
    B, T, H, K = q.shape
    V = v.shape[-1]
    q, k, v, g = (x.to(dtype).transpose(1, 2) for x in (q, k, v, g))  # (B, H, T, K or V)
    beta = beta.to(dtype).transpose(1, 2)  # (B, H, T)
    state = torch.zeros((B, H, K, V), dtype=dtype, device=q.device)
    o = torch.empty((B, H, T, V), dtype=dtype, device=q.device)
    for start in range(0, T, chunk):
        end = min(start + chunk, T)
        qc, kc, vc, bc = q[:, :, start:end], k[:, :, start:end], v[:, :, start:end], beta[:, :, start:end, None]
        G = g[:, :, start:end].cumsum(2)  # (B, H, C, K)
        causal = torch.ones((end - start, end - start), dtype=torch.bool, device=q.device).tril()  # j <= t
        pair_decay = torch.where(causal[:, :, None], G[:, :, :, None, :] - G[:, :, None, :, :], -math.inf).exp()
        keys_decayed = pair_decay * kc[:, :, None, :, :]  # [t, j, c] = k_jc exp(G_tc - G_jc), zero for j > t
        A = torch.einsum("bhtjc,bhtc->bhtj", keys_decayed, kc)
        read = torch.einsum("bhtjc,bhtc->bhtj", keys_decayed, qc)
        del pair_decay, keys_decayed
        decay_from_start = G.exp()
        system = torch.eye(end - start, dtype=dtype, device=q.device) + bc * A.tril(-1)
        writes = torch.linalg.solve_triangular(system, bc * (vc - (kc * decay_from_start) @ state), upper=False,
                                               unitriangular=True)
        o[:, :, start:end] = scale * ((qc * decay_from_start) @ state + read @ writes)
        to_end = (kc * (G[:, :, -1:] - G).exp()).transpose(-1, -2)  # (B, H, K, C)
        state = decay_from_start[:, :, -1, :, None] * state + to_end @ writes
    return o.transpose(1, 2), state


def reference(weights, inputs):
    o, _state = chunked_kda(inputs["q"], inputs["k"], inputs["v"], inputs["g"], inputs["beta"], inputs["scale"])
    return o


# -- per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call) ----------------------------------
VERIFY_METHOD = ("every (batch, head) pair recomputed by the fp64 recurrence over the first min(T, 64) tokens "
                 "(one chunk), each element within 2x atol + rtol*|ref|, plus one isfinite pass over the whole "
                 "output; later tokens are covered only by the full reference checks (the recurrence is "
                 "sequential: no cheap check of them exists)")

# Every pair rather than a sample: a skipped sequence, head or (sequence, head) pair fails on every call
# (it is wrong from its first token), and so do 1% of the output rows of the first chunk. The first chunk
# is the chunked algorithm's whole intra-chunk computation (every position of a chunk), without the state
# carried between chunks.
PREFIX_TOKENS = CHUNK
# The full check holds every element within atol + rtol*|ref| of the same fp64 recurrence; 2x keeps any
# output that passes it clear of rounding differences between two fp64 evaluations.
SAFETY = 2.0
CHUNK_ELEMENTS = 2**23  # blocks of the isfinite pass over the whole output
# Cost on b8_t4k_h32 (256 pairs): 64 recurrent steps over a (256, 128, 128) fp64 state, ~10 passes over its
# 32 MiB per step (~20 GB), plus the isfinite pass over the 0.27 GB output: measured 15 ms on an H100 (17 ms
# at most over the GPU shapes; 0.18 GiB of extra memory at the peak), against the call's 0.15 TFLOP and
# 1.6 GB (0.48 ms at the roofline).


def verify_call(out, weights, inputs, gen, tolerance):
    """Deterministic (gen is not needed): every pair, the first chunk of tokens."""
    nonfinite = check_finite(out, CHUNK_ELEMENTS)
    if nonfinite:
        return nonfinite
    tokens = min(out.shape[1], PREFIX_TOKENS)
    prefix = (inputs[name][:, :tokens] for name in ("q", "k", "v", "g", "beta"))
    ref, _state = recurrent_kda(*prefix, inputs["scale"])
    return within_tolerance(out[:, :tokens].double(), ref, tolerance, SAFETY, f"elements of the first {tokens} tokens")
