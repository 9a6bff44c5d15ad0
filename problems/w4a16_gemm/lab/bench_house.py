"""Time the house kernel against its previous version and alternative dispatch configs, in one GPU run.

    python problems/w4a16_gemm/lab/bench_house.py --previous OLD_HOUSE.py --out $OUT/bench_house.json

OLD_HOUSE.py is an earlier solutions/house.py (e.g. `git show REV:problems/w4a16_gemm/solutions/house.py`).
Same procedure and table as bench_variants.py (its `main`). Variant families: "previous" (the old file's
own dispatch), "house" (this file's dispatch) and "alt" (this file's kernels with the configs listed below,
which include the dispatch's neighbours: wider tiles, more stages, more K splits).
"""

import argparse
import sys
from pathlib import Path

import triton

LAB = Path(__file__).resolve().parent
PROBLEM = LAB.parent
sys.path.insert(0, str(LAB))
sys.path.insert(0, str(PROBLEM.parents[1]))
import bench_variants  # noqa: E402
from scoring.problem import import_file  # noqa: E402

house = import_file(PROBLEM / "solutions" / "house.py", "w4_house_current")
previous = None  # set from --previous in __main__


def prepare(qweight, scales, zeros):
    return {"house": house.prepare(qweight, scales, zeros), "triton": house.prepare_triton(qweight, scales, zeros),
            "previous": previous.prepare(qweight, scales, zeros)}


def run_variant(state, x, variant, **cfg):
    if variant == "previous":
        return previous.run(state["previous"], x)
    if variant == "house_default":
        return house.run(state["house"], x)
    keys = {"gemv": ("BLOCK_N",), "mma": ("BLOCK_M", "BLOCK_N"), "swap": ("BLOCK_N", "BLOCK_T")}[cfg["KERNEL"]]
    launch = {k: cfg[k] for k in ("KERNEL", "num_warps", "num_stages") + keys}
    launch["SPLIT_K"] = cfg.get("SPLIT_K")
    if not launch["SPLIT_K"]:  # as house.pick_config, with this config's programs per SM
        M, K = x.shape
        N = state["triton"]["scales"].shape[1]
        tiles = triton.cdiv(M, house._rows_per_tile(launch)) * triton.cdiv(N, launch["BLOCK_N"])
        split = 1
        while (tiles * split < cfg.get("programs_per_sm", 2) * house._sm_count(x.device) and split < 8
               and (K // 128) // (2 * split) >= 4):
            split *= 2
        launch["SPLIT_K"] = split
    s = state["triton"]  # the alt configs are the house's Triton kernels
    return house.w4a16_gemm(x, s["words"], s["scales"], s["zeros"], s["counters"], config=launch)


def gemv(BLOCK_N, warps, per_sm=4):
    return "alt", dict(KERNEL="gemv", BLOCK_N=BLOCK_N, num_warps=warps, num_stages=3, programs_per_sm=per_sm)


def mma(BLOCK_N, warps, stages=3, BLOCK_M=16, per_sm=2):
    return "alt", dict(KERNEL="mma", BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=warps, num_stages=stages,
                       programs_per_sm=per_sm)


def swap(BLOCK_N, BLOCK_T, warps, stages=3, split=None, per_sm=2):
    cfg = dict(KERNEL="swap", BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T, num_warps=warps, num_stages=stages,
               programs_per_sm=per_sm)
    return "alt", dict(cfg, SPLIT_K=split) if split else cfg


BASE = [("previous", {}), ("house_default", {})]
CANDIDATES_BY_M = [
    (1, BASE + [gemv(128, 4), gemv(64, 4, 8), gemv(128, 8, 4), gemv(256, 8, 4), swap(64, 16, 4)]),
    (16, BASE + [mma(128, 4), mma(64, 4, 4), mma(64, 4, per_sm=4), swap(64, 16, 4), swap(128, 16, 4)]),
    (32, BASE + [swap(128, 32, 4), swap(64, 32, 4, 4), mma(64, 4, BLOCK_M=32), swap(64, 32, 4, per_sm=4)]),
    (64, BASE + [swap(128, 64, 8), swap(128, 64, 4), swap(64, 64, 4, 4), swap(64, 64, 4, per_sm=4)]),
    (256, BASE + [swap(128, 128, 8, 4, split=1), swap(64, 128, 4, split=1), swap(128, 256, 8, split=1),
                  swap(256, 128, 8, split=1), swap(128, 64, 4, split=1)]),
]


def candidates(M):
    for m_class, configs in CANDIDATES_BY_M:
        if M <= m_class:
            return [(v, dict(c, BLOCK_N=c.get("BLOCK_N", 0), BLOCK_T=c.get("BLOCK_T", 16), SPLIT_K=c.get("SPLIT_K"),
                             num_warps=c.get("num_warps", 0), num_stages=c.get("num_stages", 0)))
                    for v, c in configs]
    return candidates(256)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--previous", required=True)
    known, rest = parser.parse_known_args()
    previous = import_file(Path(known.previous).resolve(), "w4_house_previous")
    sys.argv = [sys.argv[0]] + rest
    bench_variants.main(sys.modules[__name__], candidates)
