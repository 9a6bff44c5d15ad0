"""Check and time the mma.sync CUDA kernel (cuda_mma.py) against the house kernel on the GPU, in one run.

    python problems/w4a16_gemm/bench_cuda.py --out $OUT/bench_cuda.json [--shapes a,b]

First a correctness sweep over awkward small shapes (M not a multiple of the token tile, N not a multiple of
the column tile, one K tile, split K with uneven and empty splits) for every tile config, with the
problem's check; then bench_variants.main's timing of every config per visible and held-out shape.
"""

import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
import bench_variants  # noqa: E402
import cuda_mma  # noqa: E402
from scoring.checking import compare  # noqa: E402
from scoring.problem import load_problem  # noqa: E402


def tile(BN, BM, wn, wm, wk, stages, per_sm=None, split=None):
    return "cuda", dict(BN=BN, BM=BM, wn=wn, wm=wm, wk=wk, stages=stages, per_sm=per_sm, split=split)


def label(variant, cfg):
    if variant != "cuda":
        return variant
    split = f"k{cfg['split']}" if cfg["split"] else f"p{cfg['per_sm']}"
    return f"cuda {cuda_mma.TileConfig(*(cfg[k] for k in ('BN', 'BM', 'wn', 'wm', 'wk', 'stages')))!r} {split}"


def tile_config(cfg):
    return cuda_mma.TileConfig(*(cfg[k] for k in ("BN", "BM", "wn", "wm", "wk", "stages")))


def prepare(qweight, scales, zeros):
    return {"words": cuda_mma.pack_fragments(qweight), "scale_zero": cuda_mma.pack_scale_zero(scales, zeros),
            "counters": torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device)}


SM_COUNT = None


def run_variant(state, x, variant, **cfg):
    tc = tile_config(cfg)
    M, K = x.shape
    N = state["scale_zero"].shape[1]
    split = cfg["split"] or cuda_mma.split_for(tc, M, N, K, SM_COUNT, cfg["per_sm"])
    return cuda_mma.w4a16_mma(x, state["words"], state["scale_zero"], state["counters"], tc, split)


DECODE = lambda BM: [  # noqa: E731
    tile(128, BM, 8, 1, 1, 4, per_sm=4), tile(128, BM, 8, 1, 1, 4, per_sm=2), tile(128, BM, 8, 1, 1, 4, per_sm=8),
    tile(128, BM, 4, 1, 2, 4, per_sm=4), tile(256, BM, 8, 1, 1, 4, per_sm=4), tile(64, BM, 4, 1, 1, 4, per_sm=8),
    tile(128, BM, 8, 1, 1, 6, per_sm=4), tile(128, BM, 4, 1, 1, 4, per_sm=4)]
CANDIDATES_BY_M = [
    (1, [("house", {})] + DECODE(8)),
    (8, [("house", {})] + DECODE(8)),
    (16, [("house", {})] + DECODE(16)),
    (32, [("house", {}), tile(128, 32, 8, 1, 1, 4, per_sm=4), tile(128, 32, 4, 2, 1, 4, per_sm=4),
          tile(128, 32, 4, 1, 2, 4, per_sm=4), tile(64, 32, 4, 1, 1, 4, per_sm=4), tile(128, 32, 4, 1, 1, 4, per_sm=2)]),
    (64, [("house", {}), tile(128, 64, 4, 2, 1, 4, per_sm=2), tile(64, 64, 2, 2, 1, 4, per_sm=2),
          tile(128, 64, 8, 1, 1, 4, per_sm=2), tile(128, 64, 4, 2, 1, 4, per_sm=1), tile(128, 64, 4, 1, 1, 4, per_sm=2),
          tile(64, 64, 4, 1, 1, 4, per_sm=2)]),
    (256, [("house", {}), tile(128, 128, 4, 2, 1, 3, split=1), tile(128, 128, 2, 4, 1, 3, split=1),
           tile(128, 64, 4, 2, 1, 4, split=1), tile(64, 128, 2, 4, 1, 3, split=1), tile(128, 128, 4, 2, 1, 4, split=1),
           tile(128, 256, 4, 2, 1, 2, split=1), tile(128, 128, 4, 2, 1, 3, per_sm=1)]),
]


def candidates(M):
    for m_class, configs in CANDIDATES_BY_M:
        if M <= m_class:
            return configs
    return CANDIDATES_BY_M[-1][1]


def correctness_sweep(problem):
    """Every distinct tile config on awkward shapes; prints and returns the failures."""
    configs = {label(v, c): c for _, cands in CANDIDATES_BY_M for v, c in cands if v == "cuda"}
    shapes = [(1, 80, 256), (5, 4144, 1024), (16, 64, 128), (33, 200 * 16, 640), (100, 1040, 512),
              (256, 336, 384)]
    device = torch.device("cuda")
    failures = 0
    for M, N, K in shapes:
        p = {"M": M, "N": N, "K": K}
        gen = torch.Generator(device=device).manual_seed(M * 7 + N)
        weights = problem.module.make_weights(p, gen, device)
        x = problem.module.make_inputs(p, weights, gen, device)["x"]
        ref = problem.module.reference(weights, {"x": x})
        state = prepare(**weights)
        for name, cfg in configs.items():
            for split in (1, 3, K // 128 + 2):  # one, uneven, more splits than K tiles (empty ones)
                try:
                    out = cuda_mma.w4a16_mma(x, state["words"], state["scale_zero"], state["counters"],
                                             tile_config(cfg), split)
                    again = cuda_mma.w4a16_mma(x, state["words"], state["scale_zero"], state["counters"],
                                               tile_config(cfg), split)
                    stats, stats2 = compare(out, ref, problem.spec.tolerance), compare(again, ref, problem.spec.tolerance)
                    ok = stats.passed and stats2.passed
                    detail = f"err {stats.normwise_err:.1e}/{stats2.normwise_err:.1e}"
                except Exception as exc:  # noqa: BLE001 - record and go on
                    ok, detail = False, f"{type(exc).__name__}: {exc}"[:400]
                if not ok:
                    failures += 1
                    print(f"SWEEP FAIL M{M} N{N} K{K} {name} split {split}: {detail}", flush=True)
    print(f"correctness sweep: {len(shapes)} shapes x {len(configs)} configs x 3 splits, {failures} failures",
          flush=True)
    return failures


if __name__ == "__main__":
    started = time.time()
    SM_COUNT = torch.cuda.get_device_properties(0).multi_processor_count
    correctness_sweep(load_problem(HERE))
    print(f"sweep wall {time.time() - started:.0f} s", flush=True)
    bench_variants.main(sys.modules[__name__], candidates, label)
