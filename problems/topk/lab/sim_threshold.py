"""CPU replay of house_threshold.py's threshold on the scored shapes: candidates per row (no GPU, no timing).

For each shape (every row, make_values with a given seed) and variant it replays, in integer torch, what
kernels 1 and 2 compute (the sample maxima, tau = their k-th largest, the tie mode) and counts what kernel 3
would emit per row: keys >= tau (> tau in tie mode). It reports the sample fraction 1/F, SEG, the maxima per
row, the candidates per row (mean, max) against the row's GT_SLOTS (more is an overflow: that row takes the
slow exact fallback), the tie-mode rows and those needing a tie fill (fewer than k candidates), and the
bytes read per roofline byte (1 + 1/F, before any L2 hit).
    python problems/topk/lab/sim_threshold.py [--variants buf32,buf16] [--seed 7] [SHAPE ...]   (CPU, ~1 min)
"""

import argparse
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))

from scoring.problem import import_file, load_problem  # noqa: E402

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def order_keys(x: torch.Tensor) -> torch.Tensor:
    bits = x.view(torch.int32)
    keys = bits ^ ((bits >> 31) & 0x7FFFFFFF)
    return torch.where(torch.isnan(x), torch.full_like(keys, INT32_MAX), keys)


def replay(x: torch.Tensor, k: int, cfg: dict) -> dict:
    """Kernels 1-2 as the module computes them, then kernel 3's per-row candidate counts."""
    batch, n = x.shape
    keys = order_keys(x).to(torch.int64)
    tile, stride, seg = cfg["TILE_S"], cfg["stride"], cfg["SEG"]
    padded = torch.full((batch, cfg["tiles_per_row"] * stride), INT32_MIN, dtype=torch.int64)
    padded[:, :n] = keys
    sample = padded.view(batch, cfg["tiles_per_row"], stride)[:, :, :tile]  # each tile's first TILE_S
    maxima = sample.reshape(batch, -1, seg).amax(dim=2)  # groups wholly past n stay INT32_MIN
    valid = maxima != INT32_MIN
    ranked = torch.where(valid, maxima, torch.full_like(maxima, INT32_MIN)).sort(dim=1, descending=True).values
    enough = valid.sum(1) >= k
    kth = ranked[:, k - 1] if ranked.shape[1] >= k else torch.full((batch,), INT32_MIN, dtype=torch.int64)
    tau = torch.where(enough, kth, torch.full_like(kth, INT32_MIN))
    tie_mode = enough & ((maxima == kth[:, None]) & valid).sum(1).ge(2)
    above = (keys > tau[:, None]).sum(1)
    at = (keys == tau[:, None]).sum(1)
    candidates = torch.where(tie_mode, above, above + at)
    return dict(tau=tau, tie_mode=tie_mode, candidates=candidates, tie_fill=tie_mode & (candidates < k))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("shapes", nargs="*")
    args = parser.parse_args()
    problem = load_problem(REPO / "problems" / "topk")
    module = import_file(HERE.parent / "solutions" / "house.py", "house_threshold_sim")
    variants = args.variants.split(",") if args.variants else list(module.VARIANTS)
    shapes = problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out
    print(
        f"{'shape':<20} {'variant':<10} {'F':>3} {'SEG':>4} {'maxima':>6} {'GT_SLOTS':>8} {'cand mean':>9} "
        f"{'cand max':>8} {'overflow':>8} {'tie rows':>8} {'tie fill':>8} {'reads':>5}"
    )
    for shape in shapes:
        if args.shapes and shape.name not in args.shapes:
            continue
        p = dict(shape.params)
        x = problem.module.make_values(p, torch.Generator().manual_seed(args.seed), "cpu")
        for variant in variants:
            cfg = module.pick_config(p["batch"], p["n"], p["k"], module.DEFAULT_SMS, variant)
            r = replay(x, p["k"], cfg)
            c = r["candidates"].float()
            overflow = int((r["candidates"] > cfg["GT_SLOTS"]).sum())
            print(
                f"{shape.name:<20} {variant:<10} {cfg['F']:>3} {cfg['SEG']:>4} {cfg['maxima_per_row']:>6} "
                f"{cfg['GT_SLOTS']:>8} {c.mean():>9.1f} {int(c.max()):>8} {overflow:>8} "
                f"{int(r['tie_mode'].sum()):>8} {int(r['tie_fill'].sum()):>8} {1 + 1 / cfg['F']:>5.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
