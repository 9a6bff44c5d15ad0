"""Check and time tile configs of the house's CUDA kernels (solutions/house.py) on the GPU, in one run.

    python problems/w4a16_gemm/lab/bench_cuda.py --out $OUT/bench_cuda.json [--shapes a,b] [--only cuda]

W4A16_BENCH_HOUSE=path/to/house.py benches that file's kernels instead (another house with the same TileConfig
and LaunchPlan interface, to compare in one GPU session); the "house" rows still run solutions/house.py's own
dispatch.

First a correctness sweep over awkward small shapes (M not a multiple of the token tile, N not a multiple of
the column tile, one K tile, split K with uneven and empty splits) for every tile config, with the
problem's check; then bench_variants.main's timing of every config per visible and held-out shape.
"""

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

LAB = Path(__file__).resolve().parent
PROBLEM = LAB.parent
sys.path.insert(0, str(LAB))
sys.path.insert(0, str(PROBLEM.parents[1]))
import bench_variants  # noqa: E402
from scoring.checking import compare  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402

HOUSE_FILE = Path(os.environ.get("W4A16_BENCH_HOUSE", PROBLEM / "solutions" / "house.py"))
house = import_file(HOUSE_FILE, "w4_house_cuda")  # its CUDA path is benched here


def tma(warpgroups, BM, stages=4, split="auto", mb=1, ov=False, minb=0, cl=1):
    """A config of the house's kernel. split: K splits, or "auto" (house.split_for over the kernel's resident
    blocks with at least minb blocks per SM, as the house's CUDA_DISPATCH rows run). The dict keeps the
    fields of earlier rounds' rows (kind, BN, wm, wk) so that every round's JSON reads the same way."""
    return "cuda", dict(kind="tma", BN=64 * warpgroups, BM=BM, wn=warpgroups, wm=1, wk=1, stages=stages,
                        split=split, mb=mb, ov=ov, minb=minb, cl=cl)


def tile_config(cfg):
    return house.TileConfig(cfg["wn"], cfg["BM"], cfg["stages"], cfg["mb"], cfg["ov"], cfg["cl"])


def split_of(cfg, M, N, K):
    if cfg["split"] != "auto":
        return cfg["split"]
    tc = tile_config(cfg)
    return house.split_for(tc, M, N, K, house.resident_blocks(tc) * SM_COUNT, cfg["minb"] * SM_COUNT)


def label(variant, cfg):
    if variant != "cuda":
        return variant
    if cfg["split"] != "auto":
        return f"cuda {tile_config(cfg)!r} k{cfg['split']}"
    return f"cuda {tile_config(cfg)!r} auto" + (f" >={cfg['minb']}/SM" if cfg["minb"] else "")


def prepare(qweight, scales, zeros):
    return {"words": house.pack_fragments(qweight), "scale_zero": house.pack_scale_zero(scales, zeros),
            "counters": torch.zeros(1 << 16, dtype=torch.int32, device=qweight.device), "plans": {}}


SM_COUNT = None


def run_variant(state, x, variant, **cfg):
    """One call of a config, through a launch plan kept per config and shape, as the house's run keeps its own."""
    M, K = x.shape
    key = (tuple(sorted(cfg.items())), M, K)
    plan = state["plans"].get(key)
    if plan is None:
        N = state["scale_zero"].shape[1]
        plan = state["plans"][key] = house.LaunchPlan(tile_config(cfg), split_of(cfg, M, N, K), M, N, K,
                                                      state["words"], state["scale_zero"], state["counters"])
    return plan.launch(x)


HOUSE = ("house", {})  # the house's own dispatch (CUDA_DISPATCH), as the scorer runs it
# Round 11's candidates: the dispatch's rows and their runners-up from the scorer-timer probe
# (measurements/tma_probe2_h100.json; probe_scorer_timer.py, removed: bench_variants.main now times with the
# scorer's timer). Round 9 tried clusters of 2 (1.6-2.3x slower), round 10 256-token tiles and overlap at
# M = 64 (not built: ptxas spills at 168 and 96 registers per thread).
# Earlier rounds' lists (the cp.async mma.sync and wgmma kernels, removed from the house in session 6) are in
# measurements/bench_cuda_round*_h100.json's rows.
CANDIDATES_BY_M = [
    (8, [HOUSE, tma(2, 8, stages=6, mb=3, minb=8)]),
    (16, [HOUSE, tma(1, 16, stages=6, mb=4)]),
    (32, [HOUSE, tma(2, 32, stages=6, mb=2)]),
    (64, [HOUSE, tma(2, 64, stages=3, mb=2)]),
    (256, [HOUSE, tma(2, 128, stages=5, ov=True), tma(2, 128, stages=4)]),
]


def candidates(M):
    for m_class, configs in CANDIDATES_BY_M:
        if M <= m_class:
            return configs
    return CANDIDATES_BY_M[-1][1]


def all_configs():
    """The candidates' tile configs and the house dispatch's (which the "house" rows run)."""
    candidates = [tile_config(c) for _, cands in CANDIDATES_BY_M for v, c in cands if v == "cuda"]
    return list(dict.fromkeys(candidates + [cfg for _, cfg, _ in house.CUDA_DISPATCH]))


def correctness_sweep(problem):
    """Every distinct tile config on awkward shapes; prints and returns the failures."""
    configs = {repr(c): c for c in all_configs()}
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
                    out, again = (house.cuda_w4a16_gemm(x, state["words"], state["scale_zero"], state["counters"],
                                                        cfg, split) for _ in range(2))
                    tolerance = problem.spec.tolerance
                    stats, stats2 = compare(out, ref, tolerance), compare(again, ref, tolerance)
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
                print(f"{cfg!r}: {house.resident_blocks(cfg)} resident blocks per SM", flush=True)
            else:
                failed_builds.append(cfg)
                print(f"BUILD FAIL {cfg}: {error}"[:2000], flush=True)
    print(f"built {len(all_configs()) - len(failed_builds)} kernels in {time.time() - started:.0f} s", flush=True)
    correctness_sweep(load_problem(PROBLEM))
    print(f"sweep wall {time.time() - started:.0f} s", flush=True)
    bench_variants.main(sys.modules[__name__], candidates, label)
