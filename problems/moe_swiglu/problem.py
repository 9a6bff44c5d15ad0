"""MoE up-projection with fused SwiGLU: inputs, routing, reference and roofline formulas (data in problem.toml).

Shape parameters: T tokens, each routed to `topk` experts, so the permuted activation x has
rows = T * topk rows of H; E experts, each with gate and up weights (H, I); `routing` picks the routing
family (0 balanced, 1 skewed, 2 skewed with one hot expert). Expert e owns rows
offsets[e]:offsets[e+1] of x, and its output rows are silu(x_e @ W_gate[e]) * (x_e @ W_up[e]).
"""

import torch

from scoring.call_checks import check_finite, rows_per_block, sampled_rows, within_tolerance

BALANCED, SKEWED, HOT_EXPERT = 0, 1, 2
# Skewed routing: expert popularity is log-normal (sigma below), one expert in EMPTY_EVERY receives no
# token, and no expert gets more than MAX_SHARE_OF_MEAN times the mean load (real routers' auxiliary
# losses keep the imbalance within a few times the mean).
POPULARITY_SIGMA = 1.0
EMPTY_EVERY = 8
MAX_SHARE_OF_MEAN = 6.0
# Operand spreads: the products are unit-variance whatever H is, and gate and up differ (1.5x), so a
# kernel that swaps them, or applies SiLU to the wrong one, is wrong.
GATE_STD = 1.5
UP_STD = 1.0


def routed_rows(shape):
    return shape["T"] * shape["topk"]


def flops(shape):
    # Dense-equivalent over routed rows: two (rows x H) by (H x I) products, gate and up.
    return 2 * routed_rows(shape) * shape["H"] * 2 * shape["I"]


def bytes_moved(shape):
    rows, H, I, E = routed_rows(shape), shape["H"], shape["I"], shape["E"]
    # bf16 x, gate and up weights of every expert, bf16 output, int32 offsets.
    return 2 * rows * H + 2 * 2 * E * H * I + 2 * rows * I + 4 * (E + 1)


def output_spec(shape):
    return (routed_rows(shape), shape["I"]), torch.bfloat16


def make_weights(shape, gen, device):
    E, H, I = shape["E"], shape["H"], shape["I"]
    weights = {}
    for name, std in (("w_gate", GATE_STD), ("w_up", UP_STD)):
        w = torch.empty((E, H, I), dtype=torch.bfloat16, device=device)
        for e in range(E):  # one expert at a time: no fp32 temporary of the whole tensor
            w[e] = torch.randn((H, I), generator=gen, device=device) * (std / H**0.5)
        weights[name] = w
    return weights


def expert_counts(shape, gen, device) -> torch.Tensor:
    """Rows per expert (int64, on the CPU) for the shape's routing family; they sum to T * topk."""
    rows, E, T, routing = routed_rows(shape), shape["E"], shape["T"], shape["routing"]
    if routing == BALANCED:
        counts = torch.full((E,), rows // E, dtype=torch.int64)
        counts[: rows % E] += 1
        return counts
    popularity = torch.exp(POPULARITY_SIGMA * torch.randn(E, generator=gen, device=device)).cpu().double()
    empty = torch.randperm(E, generator=gen, device=device).cpu()[: max(1, E // EMPTY_EVERY)]
    popularity[empty] = 0.0
    hot = None
    if routing == HOT_EXPERT:
        # One expert takes every token (T rows, the most one expert can own); the rest share the others.
        hot = int(torch.randint(E, (1,), generator=gen, device=device).item())
        popularity[hot] = 0.0
    popularity = popularity / popularity.sum()
    popularity = popularity.clamp(max=MAX_SHARE_OF_MEAN / E)
    popularity = popularity / popularity.sum()
    remaining = rows - (T if hot is not None else 0)
    counts = torch.zeros(E, dtype=torch.int64)
    if remaining > 0:  # with topk = 1 the hot expert takes every row
        draws = torch.multinomial(popularity.float().to(device), remaining, replacement=True, generator=gen)
        counts = torch.bincount(draws.cpu(), minlength=E).to(torch.int64)
    if hot is not None:
        counts[hot] = T
    return counts


def make_inputs(shape, weights, gen, device):
    counts = expert_counts(shape, gen, device)
    offsets = torch.zeros(shape["E"] + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(counts, 0).to(torch.int32)
    x = torch.randn((routed_rows(shape), shape["H"]), generator=gen, device=device).to(torch.bfloat16)
    return {"x": x, "offsets": offsets.to(device)}


def reference(weights, inputs):
    """fp32 products of the bf16 operands (exact), fp32 accumulation, SwiGLU in fp32, per expert."""
    x, offsets = inputs["x"], inputs["offsets"].tolist()
    out = torch.zeros((x.shape[0], weights["w_gate"].shape[2]), dtype=torch.float32, device=x.device)
    for e in range(len(offsets) - 1):
        start, end = offsets[e], offsets[e + 1]
        if end == start:
            continue
        xe = x[start:end].float()
        gate = xe @ weights["w_gate"][e].float()
        up = xe @ weights["w_up"][e].float()
        out[start:end] = torch.nn.functional.silu(gate) * up
    return out


# -- per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call) ----------------------------------
VERIFY_METHOD = ("min(rows, 700) random routed rows (every row when fewer), 16 random columns each: gate and up "
                 "recomputed exactly in fp64 from x and the row's expert weights (elementwise products summed), "
                 "SwiGLU within 2x atol + rtol*|ref|; 1% of rows wrong escapes with P <= 0.99^700 < 9e-4. "
                 "No linear (Freivalds) check applies to the SwiGLU of two products")

# Rows are what a grouped GEMM skips (an expert segment, an m-tile): 700 sampled rows leave a 1%-wrong output
# unseen with probability 0.99^700 = 8.8e-4. A zeroed or stale row escapes a sampled entry only where the
# reference is within ~2 atol of the wrong value (a few % of entries), so 16 columns leave it ~1e-20.
SAMPLED_ROWS = 700
SAMPLED_COLUMNS = 16
# The full check holds every element within atol + rtol*|ref| of an fp32 reference; 2x that absorbs the
# fp32-vs-fp64 reference difference (~1e-6 relative) so that no output passing the full check fails here.
SAFETY = 2.0
CHUNK_ELEMENTS = 2**25  # fp64 products of 256 MiB at most: 0.33 GiB of extra memory at the peak (H100)
# Cost on deepseek_v3_ep2_96e (H=7168): 700 x 16 entries x 2 products x H = 160M fp64 products of weights
# gathered column by column (a 32-byte sector read per value), one isfinite pass over the output: ~6 GB,
# measured 7.4 ms on an H100 (the call: 240 GFLOP, 1.8 ms at the roofline).


def _swiglu_entries(weights, x, rows, experts, columns):
    """out[rows[i], columns[i, j]] in fp64 from x and expert experts[i]'s gate and up columns, no GEMM."""
    H = x.shape[1]
    step = rows_per_block(CHUNK_ELEMENTS, columns.shape[1] * H)
    parts = []
    for start in range(0, rows.numel(), step):
        x_rows = x[rows[start:start + step]].double()[:, None, :]
        expert, cols = experts[start:start + step, None], columns[start:start + step]
        # (rows, columns, H) bf16 gathers, promoted to fp64 in the products, summed over H
        gate = (weights["w_gate"][expert, :, cols] * x_rows).sum(-1)
        up = (weights["w_up"][expert, :, cols] * x_rows).sum(-1)
        parts.append(torch.nn.functional.silu(gate) * up)
    return torch.cat(parts)


def verify_call(out, weights, inputs, gen, tolerance):
    nonfinite = check_finite(out, CHUNK_ELEMENTS)
    if nonfinite:
        return nonfinite
    x, offsets = inputs["x"], inputs["offsets"].long()
    rows, I = out.shape
    sampled = sampled_rows(rows, SAMPLED_ROWS, gen, out.device)
    columns = torch.randint(0, I, (sampled.numel(), SAMPLED_COLUMNS), generator=gen, device=out.device)
    experts = torch.searchsorted(offsets[1:], sampled, right=True)  # expert e owns rows offsets[e]:offsets[e+1]
    ref = _swiglu_entries(weights, x, sampled, experts, columns)
    return within_tolerance(out[sampled[:, None], columns].double(), ref, tolerance, SAFETY, "sampled entries")
