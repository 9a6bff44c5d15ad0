"""Sweep the house MoE kernel's tile configurations on the GPU (a tuning aid, not a score).

    python problems/moe_swiglu/lab/bench_configs.py [--out FILE.json] [--shapes visible|all]

For every shape: each candidate config's median time (scoring.bench.time_calls: the scorer's timer, L2
flush and launch gate), TFLOPS and fraction of the bf16 roofline, its normwise error against the fp32 reference, and
torch._grouped_mm (the library line) beside it. The picks in house.pick_config come from here.
"""

import argparse
import json
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.bench import median_ms  # noqa: E402
from scoring.hardware import detect  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402
from scoring.roofline import roofline_point  # noqa: E402

# Per config: a sweep ranks configs with the scorer's timer (scoring.bench); the scoring run is the measurement.
BUDGET_S = 2.0

CANDIDATES = [
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=4),
    dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, num_warps=4, num_stages=4),
    dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=128, num_warps=8, num_stages=3),
    dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=4),
    dict(BLOCK_M=64, BLOCK_N=256, BLOCK_K=64, num_warps=8, num_stages=3),
    dict(BLOCK_M=256, BLOCK_N=64, BLOCK_K=64, num_warps=8, num_stages=3),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="")
    parser.add_argument("--shapes", default="visible", choices=("visible", "all"))
    args = parser.parse_args()
    problem = load_problem(REPO / "problems" / "moe_swiglu")
    house = import_file(REPO / "problems" / "moe_swiglu" / "solutions" / "house.py", "house")
    library = import_file(REPO / "problems" / "moe_swiglu" / "solutions" / "baselines" / "library.py", "library")
    hw = detect("cuda", "bf16")
    peak_tflops, peak_gbps = hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps
    device = torch.device("cuda")
    rows = []
    deck = problem.spec.gpu_shapes
    shapes = deck.visible + (deck.held_out if args.shapes == "all" else ())
    for shape in shapes:
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(1)
        w = problem.module.make_weights(p, gen, device)
        x = problem.module.make_inputs(p, w, gen, device)
        ref = problem.module.reference(w, x)
        flops, nbytes = problem.flops(p), problem.bytes_moved(p)

        def record(name, fn):
            try:
                out = fn()
                err = float(((out.float() - ref).norm() / ref.norm()).item())
                ms = median_ms(fn, device=device, budget_s=BUDGET_S)
            except Exception as exc:  # a config that does not compile for this shape is just skipped
                rows.append({"shape": shape.name, "variant": name, "error": f"{type(exc).__name__}: {exc}"[:200]})
                return
            pt = roofline_point(flops, nbytes, ms, peak_tflops, peak_gbps)
            rows.append({"shape": shape.name, "variant": name, "ms": ms, "tflops": pt.achieved_tflops,
                         "gbps": pt.achieved_gbps, "fraction": pt.fraction, "normwise_err": err})

        state = library.prepare(w["w_gate"], w["w_up"])
        record("grouped_mm", lambda: library.run(state, x["x"], x["offsets"]))
        state = None  # the grouped_mm weights; rebinding, not del: the lambda above reads the name
        record("house-pick", lambda: house.moe_swiglu(x["x"], x["offsets"], w["w_gate"], w["w_up"]))
        for cfg in CANDIDATES:
            name = "{BLOCK_M}x{BLOCK_N}x{BLOCK_K} w{num_warps} s{num_stages}".format(**cfg)
            record(name, lambda cfg=cfg: house.moe_swiglu(x["x"], x["offsets"], w["w_gate"], w["w_up"], config=cfg))
        best = max((r for r in rows if r["shape"] == shape.name and "fraction" in r and r["variant"] != "grouped_mm"),
                   key=lambda r: r["fraction"], default=None)
        print(f"{shape.name}: best {best and best['variant']} {best and round(best['fraction'], 3)}", flush=True)
        w = x = ref = None  # free this shape (rebinding, not del: the closures above read these names)
        torch.cuda.empty_cache()
    if args.out:
        Path(args.out).write_text(json.dumps({"hardware": hw.as_dict(), "rows": rows}, indent=1))
    print(f"{'shape':<22} {'variant':<26} {'ms':>9} {'TFLOPS':>8} {'frac':>6} {'err':>8}")
    for r in rows:
        if "error" in r:
            print(f"{r['shape']:<22} {r['variant']:<26} ERROR {r['error'][:60]}")
        else:
            print(f"{r['shape']:<22} {r['variant']:<26} {r['ms']:9.4f} {r['tflops']:8.1f} {r['fraction']:6.3f} "
                  f"{r['normwise_err']:8.1e}")


if __name__ == "__main__":
    main()
