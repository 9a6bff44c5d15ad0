"""Check and time tile configs of the house's CUDA kernels (solutions/house.py) on the GPU, in one run.

    python problems/w4a16_gemm/bench_cuda.py --out $OUT/bench_cuda.json [--shapes a,b]

First a correctness sweep over awkward small shapes (M not a multiple of the token tile, N not a multiple of
the column tile, one K tile, split K with uneven and empty splits) for every tile config, with the
problem's check; then bench_variants.main's timing of every config per visible and held-out shape.
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
import bench_variants  # noqa: E402
from scoring.checking import compare  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402

house = import_file(HERE / "solutions" / "house.py", "w4_house_cuda")  # its CUDA path is benched here


def tile(kind, BN, BM, wn, wm=1, wk=1, stages=4, per_sm=None, split=None, mb=1):
    return "cuda", dict(kind=kind, BN=BN, BM=BM, wn=wn, wm=wm, wk=wk, stages=stages, per_sm=per_sm, split=split,
                        mb=mb)


def mma(BN, BM, wn, wm=1, wk=1, stages=4, per_sm=None, split=None, mb=1):
    return tile("mma", BN, BM, wn, wm, wk, stages, per_sm, split, mb)


def wgmma(warpgroups, BM, stages=4, per_sm=None, split=None, mb=1):
    return tile("wgmma", 64 * warpgroups, BM, warpgroups, 1, 1, stages, per_sm, split, mb)


def tile_config(cfg):
    return house.TileConfig(*(cfg[k] for k in ("kind", "BN", "BM", "wn", "wm", "wk", "stages", "mb")))


def label(variant, cfg):
    if variant != "cuda":
        return variant
    split = f"k{cfg['split']}" if cfg["split"] else f"p{cfg['per_sm']}"
    return f"cuda {tile_config(cfg)!r} {split}"


def prepare(qweight, scales, zeros):
    return {"words": house.pack_fragments(qweight), "scale_zero": house.pack_scale_zero(scales, zeros),
            "counters": torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device)}


SM_COUNT = None


def run_variant(state, x, variant, **cfg):
    tc = tile_config(cfg)
    M, K = x.shape
    N = state["scale_zero"].shape[1]
    split = cfg["split"] or house.split_for(tc, M, N, K, SM_COUNT, cfg["per_sm"])
    return house.cuda_w4a16_gemm(x, state["words"], state["scale_zero"], state["counters"], tc, split)


HOUSE = ("house", {})  # the house's own dispatch (CUDA_DISPATCH), as the scorer runs it
# Round 4's candidates (earlier rounds' lists are in measurements/bench_cuda_round*_h100.json's rows).
CANDIDATES_BY_M = [
    (8, [HOUSE, mma(128, 8, 4, per_sm=12), mma(128, 8, 4, per_sm=12, mb=4), mma(128, 8, 4, per_sm=16, mb=6),
         mma(128, 8, 4, per_sm=24, mb=8), mma(128, 8, 4, stages=3, per_sm=16, mb=6), mma(64, 8, 4, per_sm=16, mb=6),
         mma(128, 8, 8, per_sm=12, mb=3), wgmma(1, 16, per_sm=16, mb=4), wgmma(1, 16, per_sm=24, mb=6)]),
    (16, [HOUSE, wgmma(1, 16, per_sm=16), wgmma(1, 16, per_sm=16, mb=4), wgmma(1, 16, per_sm=24, mb=6),
          wgmma(1, 16, stages=3, per_sm=24, mb=6), wgmma(2, 16, per_sm=8, mb=3), mma(128, 16, 4, per_sm=16, mb=6)]),
    (32, [HOUSE, wgmma(2, 32, per_sm=8), wgmma(2, 32, per_sm=8, mb=3), wgmma(1, 32, per_sm=12, mb=4),
          wgmma(1, 32, per_sm=16, mb=6)]),
    (64, [HOUSE, wgmma(2, 64, stages=3, per_sm=4, mb=2), wgmma(2, 64, stages=3, per_sm=6, mb=2),
          wgmma(2, 64, stages=2, per_sm=6, mb=3), wgmma(1, 64, stages=2, per_sm=8, mb=4),
          wgmma(1, 64, stages=3, per_sm=8, mb=4)]),
    (256, [HOUSE, wgmma(2, 128, stages=3, split=1), wgmma(2, 128, stages=4, split=1), wgmma(2, 64, stages=3, split=1, mb=2),
           wgmma(2, 64, stages=2, split=1, mb=3), wgmma(1, 64, stages=3, split=1, mb=4)]),
]


def candidates(M):
    for m_class, configs in CANDIDATES_BY_M:
        if M <= m_class:
            return configs
    return CANDIDATES_BY_M[-1][1]


def all_configs():
    return list(dict.fromkeys(tile_config(c) for _, cands in CANDIDATES_BY_M for v, c in cands if v == "cuda"))


def correctness_sweep(problem):
    """Every distinct tile config on awkward shapes; prints and returns the failures."""
    configs = {repr(tile_config(c)): c for _, cands in CANDIDATES_BY_M for v, c in cands if v == "cuda"}
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
                    out = house.cuda_w4a16_gemm(x, state["words"], state["scale_zero"], state["counters"],
                                             tile_config(cfg), split)
                    again = house.cuda_w4a16_gemm(x, state["words"], state["scale_zero"], state["counters"],
                                               tile_config(cfg), split)
                    stats, stats2 = compare(out, ref, problem.spec.tolerance), compare(again, ref, problem.spec.tolerance)
                    ok = stats.passed and stats2.passed
                    detail = f"err {stats.normwise_err:.1e}/{stats2.normwise_err:.1e}"
                except Exception as exc:  # record and go on
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
    failed_builds = []

    def build(cfg):
        try:
            house.build_cubin(cfg)
            return None
        except Exception as exc:  # one failing build names itself; the others go on
            return f"{exc}"

    with ThreadPoolExecutor(max_workers=16) as pool:
        for cfg, error in zip(all_configs(), pool.map(build, all_configs())):
            if error is None:
                house.load([cfg])
            else:
                failed_builds.append(cfg)
                print(f"BUILD FAIL {cfg}: {error}"[:2000], flush=True)
    print(f"built {len(all_configs()) - len(failed_builds)} kernels in {time.time() - started:.0f} s", flush=True)
    correctness_sweep(load_problem(HERE))
    print(f"sweep wall {time.time() - started:.0f} s", flush=True)
    bench_variants.main(sys.modules[__name__], candidates, label)
