"""Check and time the candidate kernels of variants.py (and the house kernel) on the GPU, in one run.

    python problems/w4a16_gemm/lab/bench_variants.py --out $OUT/bench_variants.json [--only swap128,house]

For every visible and held-out shape and every candidate config of its M class: the problem's correctness
check (scoring.checking.compare, the problem's tolerance, fp64 reference) on the first call and again on
a call after timing (split K reuses its arrival counters), the median time and the host time of a call
(scoring.bench.time_calls: the scorer's timer, L2 flush and launch gate) and the fraction of the roofline
(the problem's flops / bytes, scoring.hardware's peak). Errors (compile or run time) are recorded per config
and the run goes on. Last, a compact table: the best config of each variant family per shape, and the
geomean over the visible shapes.

Budget (H100, <= 5 min): ~40 distinct compiled kernels at ~2-4 s each (Triton 3.6, sm_90) = 1.5-2.5 min,
~45 timed configs x ~0.5 s (0.3 s warm-up, then until the median is stable, at most BUDGET_S) = ~25 s, and per shape the
weight generation and fp64 reference (the largest, N = 57344, K = 8192: ~4 GB of fp64, well under 1 s).
"""

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

import torch
import triton

LAB = Path(__file__).resolve().parent
PROBLEM = LAB.parent
REPO = PROBLEM.parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(LAB))

import variants  # noqa: E402
from scoring.bench import time_calls  # noqa: E402
from scoring.checking import compare  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402
from scoring.roofline import geomean, roofline_point  # noqa: E402

# Per config: a sweep ranks configs with the scorer's timer; the scoring run is the measurement.
BUDGET_S = 2.0


def _cfg(variant, BLOCK_N, num_warps, num_stages, BLOCK_T=16, SPLIT_K=None):
    return variant, dict(BLOCK_N=BLOCK_N, BLOCK_T=BLOCK_T, num_warps=num_warps, num_stages=num_stages,
                         SPLIT_K=SPLIT_K)


HOUSE = ("house", {})
# Candidates per M of the shapes (7 M values). Why these:
# * BLOCK_T (tokens) = M rounded up to a power of two >= 16 (tl.dot's minimum), so decode shapes load
#   each weight tile once; for M >= 128 also a 256-token tile (one weight pass) and 64/128 splits.
# * BLOCK_N 64 with 4 warps (one warpgroup = wgmma's 64 rows) and 128 with 4 or 8 warps; SPLIT_K None
#   splits K until >= 2 programs per SM (decode shapes have few output tiles, e.g. 128 at M = 16).
# * num_stages 3 (house's measured best) and 4 on the leading families.
CANDIDATES_BY_M = [
    (1, [HOUSE,
         _cfg("gemv_lean", 64, 4, 3), _cfg("gemv_lean", 128, 4, 3), _cfg("gemv_lean", 256, 8, 3),
         _cfg("gemv_lean", 64, 4, 4, SPLIT_K=2), _cfg("gemv_lean", 128, 4, 4, SPLIT_K=4),
         _cfg("swap16", 64, 4, 3), _cfg("swap16p", 64, 4, 3), _cfg("swap128", 64, 4, 3)]),
    (7, [HOUSE, _cfg("swap16p", 64, 4, 3), _cfg("swap16p", 128, 4, 3),
         _cfg("swap16", 64, 4, 3), _cfg("swap16", 128, 4, 3),
         _cfg("swap128", 64, 4, 3), _cfg("swap128", 128, 4, 3), _cfg("swap128", 64, 4, 4)]),
    (16, [HOUSE, _cfg("swap16p", 64, 4, 3), _cfg("swap16p", 128, 4, 3),
          _cfg("swap16", 64, 4, 3), _cfg("swap16", 128, 4, 3),
          _cfg("swap128", 64, 4, 3), _cfg("swap128", 128, 4, 3), _cfg("swap128", 64, 4, 4)]),
    (32, [HOUSE, _cfg("swap16p", 64, 4, 3, BLOCK_T=32),
          _cfg("swap16", 64, 4, 3, BLOCK_T=32), _cfg("swap128", 64, 4, 3, BLOCK_T=32),
          _cfg("swap128", 128, 4, 3, BLOCK_T=32), _cfg("swap128", 64, 4, 4, BLOCK_T=32)]),
    (64, [HOUSE, _cfg("swap16p", 64, 4, 3, BLOCK_T=64), _cfg("swap16p", 128, 4, 3, BLOCK_T=64),
          _cfg("swap16", 64, 4, 3, BLOCK_T=64), _cfg("swap16", 128, 4, 3, BLOCK_T=64),
          _cfg("swap128", 64, 4, 3, BLOCK_T=64), _cfg("swap128", 128, 4, 3, BLOCK_T=64),
          _cfg("swap128", 128, 8, 3, BLOCK_T=64), _cfg("swap128", 64, 4, 4, BLOCK_T=64)]),
    (128, [HOUSE, _cfg("swap16p", 128, 8, 3, BLOCK_T=128, SPLIT_K=1),
           _cfg("swap16", 128, 8, 3, BLOCK_T=128, SPLIT_K=1), _cfg("swap128", 128, 8, 3, BLOCK_T=128, SPLIT_K=1),
           _cfg("swap128", 64, 4, 3, BLOCK_T=128, SPLIT_K=1), _cfg("swap128", 128, 4, 3, BLOCK_T=64, SPLIT_K=1),
           _cfg("swap128", 128, 8, 4, BLOCK_T=128, SPLIT_K=1)]),
    (256, [HOUSE, _cfg("swap16p", 128, 8, 3, BLOCK_T=128, SPLIT_K=1),
           _cfg("swap16p", 128, 8, 3, BLOCK_T=256, SPLIT_K=1),
           _cfg("swap16", 128, 8, 3, BLOCK_T=128, SPLIT_K=1), _cfg("swap128", 128, 8, 3, BLOCK_T=128, SPLIT_K=1),
           _cfg("swap128", 64, 4, 3, BLOCK_T=128, SPLIT_K=1), _cfg("swap128", 128, 8, 2, BLOCK_T=256, SPLIT_K=1),
           _cfg("swap128", 128, 8, 3, BLOCK_T=128, SPLIT_K=2), _cfg("swap128", 128, 8, 4, BLOCK_T=128, SPLIT_K=1)]),
]


def candidates(M: int):
    """The candidate list of the smallest M class >= M (the visible and held-out M values are in the table)."""
    for m_class, configs in CANDIDATES_BY_M:
        if M <= m_class:
            return configs
    return CANDIDATES_BY_M[-1][1]


def label(variant: str, cfg: dict) -> str:
    if variant in ("house", "previous", "house_default"):
        return variant
    split = cfg["SPLIT_K"] or "auto"
    tokens = "" if variant == "gemv_lean" else f" T{cfg['BLOCK_T']}"
    tokens += f" K{cfg['BLOCK_K']}" if cfg.get("BLOCK_K") else ""
    if "KERNEL" in cfg:  # bench_house.py's explicit dispatch configs
        rows = f" M{cfg['BLOCK_M']}" if cfg["KERNEL"] == "mma" else tokens if cfg["KERNEL"] == "swap" else ""
        return (f"{variant} {cfg['KERNEL']} N{cfg['BLOCK_N']}{rows} w{cfg['num_warps']} s{cfg['num_stages']} "
                f"k{split} p{cfg.get('programs_per_sm', 2)}")
    return f"{variant} N{cfg['BLOCK_N']}{tokens} w{cfg['num_warps']} s{cfg['num_stages']} k{split}"


def main(module=variants, candidates_of=None, label_of=None):
    """Bench `module`'s variants (prepare, run_variant) on the configs candidates_of(M) lists, each named
    by label_of(variant, cfg)."""
    candidates_of = candidates_of or candidates
    label_of = label_of or label
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", default="", help="comma-separated variant families (default: all)")
    parser.add_argument("--shapes", default="", help="comma-separated shape names (default: all)")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    wanted_shapes = set(filter(None, args.shapes.split(",")))
    started = time.time()

    from scoring.hardware import detect

    problem = load_problem(PROBLEM)
    house = import_file(PROBLEM / "solutions" / "house.py", "w4_house")
    hw = detect("cuda", "bf16")
    peak_tflops, peak_gbps = hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps
    print(f"hardware {hw.as_dict()}", flush=True)
    device = torch.device("cuda")
    tolerance = problem.spec.tolerance
    visible = [s.name for s in problem.spec.gpu_shapes.visible]
    shapes = problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out
    rows = []
    for shape in shapes:
        if wanted_shapes and shape.name not in wanted_shapes:
            continue
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(1)
        weights = problem.module.make_weights(p, gen, device)
        x = problem.module.make_inputs(p, weights, gen, device)["x"]
        ref = problem.module.reference(weights, {"x": x})
        flops, nbytes = problem.flops(p), problem.bytes_moved(p)
        house_state = house.prepare(**weights)
        state = module.prepare(**weights)
        for variant, cfg in candidates_of(p["M"]):
            if only and variant not in only:
                continue
            name = label_of(variant, cfg)
            if variant == "house":
                fn = lambda house_state=house_state, x=x: house.run(house_state, x)  # noqa: E731
            else:
                fn = lambda state=state, x=x, variant=variant, cfg=cfg: module.run_variant(state, x, variant, **cfg)  # noqa: E731
            row = {"shape": shape.name, "variant": variant, "config": name, **{k: v for k, v in cfg.items()}}
            try:
                t0 = time.time()
                first = fn()
                torch.cuda.synchronize()
                row["first_call_s"] = time.time() - t0  # includes compilation
                stats = compare(first, ref, tolerance)
                row.update(passed=stats.passed, normwise_err=stats.normwise_err)
                timing = time_calls(fn, device=device, budget_s=BUDGET_S)
                ms = timing.median_ms
                again = compare(fn(), ref, tolerance)  # split K: the counters were reset by every call
                row["passed"] = stats.passed and again.passed
                pt = roofline_point(flops, nbytes, ms, peak_tflops, peak_gbps)
                row.update(ms=ms, p10_ms=timing.p10_ms, p90_ms=timing.p90_ms, calls=timing.count,
                           launch_us=timing.launch_median_ms * 1e3, tflops=pt.achieved_tflops, gbps=pt.achieved_gbps,
                           bound=pt.bound,
                           fraction=pt.fraction if row["passed"] else 0.0, raw_fraction=pt.fraction)
                print(f"{shape.name:24s} {name:34s} {ms * 1e3:8.1f} us {pt.achieved_tflops:6.1f} TF "
                      f"{pt.achieved_gbps:6.0f} GB/s frac {pt.fraction:.3f} err {stats.normwise_err:.1e} "
                      f"{'ok' if row['passed'] else 'FAILED CHECK'}  host {row['launch_us']:.0f} us  "
                      f"(first call {row['first_call_s']:.1f} s)",
                      flush=True)
            except Exception as exc:  # compile or launch error: record and go on
                row["error"] = f"{type(exc).__name__}: {exc}"[:3000]
                row["traceback"] = traceback.format_exc()[-3000:]
                print(f"{shape.name:24s} {name:34s} ERROR {row['error'][:300]}", flush=True)
            rows.append(row)
            Path(args.out).write_text(json.dumps({"hardware": hw.as_dict(), "torch": torch.__version__,
                                                  "triton": triton.__version__, "rows": rows}, indent=1))
        weights = x = ref = house_state = state = None  # free this shape (rebinding: the lambdas read these names)
        torch.cuda.empty_cache()
    print(f"\nwall {time.time() - started:.0f} s; results in {args.out}\n")
    print_table(rows, [s.name for s in shapes if not wanted_shapes or s.name in wanted_shapes], visible)


def print_table(rows, shape_names, visible):
    """Best passing config per variant family and shape; geomean of those over the visible shapes."""
    families = list(dict.fromkeys(r["variant"] for r in rows))
    best = {}
    for r in rows:
        key = (r["variant"], r["shape"])
        if r.get("fraction", 0) > best.get(key, {}).get("fraction", 0):
            best[key] = r
    short = {name: name.split("_")[1] for name in shape_names}  # m1, m16, ...
    print(f"{'family':10s} " + " ".join(f"{short[n]:>6s}" for n in shape_names) + "  geomean(visible)")
    for family in families + ["best"]:
        if family == "best":
            fractions = {n: max((best.get((f, n), {}).get("fraction", 0) for f in families), default=0)
                         for n in shape_names}
        else:
            fractions = {n: best.get((family, n), {}).get("fraction", 0) for n in shape_names}
        vis = [fractions[n] for n in shape_names if n in visible]
        gm = geomean(vis) if vis and all(v > 0 for v in vis) else 0.0
        print(f"{family:10s} " + " ".join(f"{fractions[n]:6.3f}" for n in shape_names) + f"  {gm:.3f}")
    print("\nbest config per shape:")
    for n in shape_names:
        cands = [r for r in rows if r["shape"] == n and r.get("fraction", 0) > 0]
        if cands:
            r = max(cands, key=lambda r: r["fraction"])
            print(f"  {n:24s} {r['fraction']:.3f}  {r['config']}  ({r['ms'] * 1e3:.1f} us)")
    errors = [r for r in rows if "error" in r or not r.get("passed", True)]
    print(f"\n{len(errors)} configs with errors or failed checks:")
    for r in errors:
        print(f"  {r['shape']:24s} {r['config']:34s} {r.get('error', 'failed check')[:160]}")


if __name__ == "__main__":
    main()
