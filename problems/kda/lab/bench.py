"""Time the house KDA kernel (and, with --fla, flash-linear-attention's chunk_kda) on the GPU shapes, with
each one's normwise error against the fp64 recurrence; medians from scoring.bench.time_calls (the scorer's
timer). A tuning aid, not a score.

    python problems/kda/lab/bench.py [--fla] [--out FILE.json]
"""

import argparse
import json
import sys
from pathlib import Path

import torch
import triton

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.bench import median_ms  # noqa: E402
from scoring.hardware import detect  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402
from scoring.roofline import roofline_point  # noqa: E402

# Per config: a sweep ranks configs with the scorer's timer (scoring.bench); the scoring run is the measurement.
BUDGET_S = 2.0


def intra_only(house, q, k, v, g, beta, scale, solve_precision="tf32", intra_warps=8):
    """Kernel 1 alone (the parallel intra-chunk part), to split the time between the two kernels."""
    B, T, H, K = q.shape
    V = v.shape[-1]
    C = house.CHUNK
    NT = triton.cdiv(T, C)
    w, qg, kg = (torch.empty_like(q) for _ in range(3))
    u = torch.empty_like(v)
    a = torch.empty((B * H, NT * C, C), dtype=torch.bfloat16, device=q.device)
    gl = torch.empty((B * H, NT, K), dtype=torch.float32, device=q.device)
    house._kda_intra[(NT, B * H)](q, k, v, g, beta, w, u, qg, kg, a, gl, T, H, NT, float(scale), K=K, V=V, C=C,
                                  SUB=house.SUB, DT=house.tl.bfloat16, DELTA=True, SOLVE_PRECISION=solve_precision,
                                  num_warps=intra_warps, num_stages=1)
    return u


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fla", action="store_true", help="time fla's chunk_kda instead of the house kernel")
    parser.add_argument("--out", default="")
    parser.add_argument("--quick", action="store_true", help="the first visible shape only")
    args = parser.parse_args()
    problem = load_problem(REPO / "problems" / "kda")
    house = import_file(REPO / "problems" / "kda" / "solutions" / "house.py", "house")
    if args.fla:
        from fla.ops.kda import chunk_kda
    hw = detect("cuda", "bf16")
    device = torch.device("cuda")
    rows = []
    deck = problem.spec.gpu_shapes
    shapes = deck.visible[:1] if args.quick else deck.visible + deck.held_out[:1]
    for shape in shapes:
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(1)
        x = problem.module.make_inputs(p, {}, gen, device)
        ref = problem.module.reference({}, x)
        variants = {"fla": lambda: chunk_kda(x["q"], x["k"], x["v"], x["g"], x["beta"], scale=x["scale"])[0]} \
            if args.fla else {
                "house": lambda: house.kda_forward(**x),
                "house-bv32": lambda: house.kda_forward(**x, block_v=32),
                "house-tf32x3": lambda: house.kda_forward(**x, solve_precision="tf32x3"),
                "house-w4": lambda: house.kda_forward(**x, intra_warps=4),
                "house-tf32x3-w4": lambda: house.kda_forward(**x, solve_precision="tf32x3", intra_warps=4),
                "intra-only": lambda: intra_only(house, **x),
                "intra-only-tf32x3": lambda: intra_only(house, **x, solve_precision="tf32x3"),
            }
        for name, fn in variants.items():
            out = fn()
            if name.startswith("intra-only"):
                ms = median_ms(fn, device=device, budget_s=BUDGET_S)
                rows.append({"shape": shape.name, "variant": name, "ms": ms})
                print(f"{shape.name:<16} {name:<18} {ms:8.3f} ms (kernel 1 alone)", flush=True)
                continue
            diff = out.double() - ref
            err, max_abs = float((diff.norm() / ref.norm()).item()), float(diff.abs().max().item())
            ms = median_ms(fn, device=device, budget_s=BUDGET_S)
            pt = roofline_point(problem.flops(p), problem.bytes_moved(p), ms, hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps)
            rows.append({"shape": shape.name, "variant": name, "ms": ms, "tflops": pt.achieved_tflops,
                         "fraction": pt.fraction, "normwise_err": err, "max_abs_err": max_abs})
            print(f"{shape.name:<16} {name:<18} {ms:8.3f} ms {pt.achieved_tflops:7.1f} TFLOPS frac {pt.fraction:.4f} "
                  f"err {err:.2e} max {max_abs:.3f}", flush=True)
        x = ref = None  # free this shape's tensors (rebinding, not del: the lambdas above read x)
    if args.out:
        Path(args.out).write_text(json.dumps({"hardware": hw.as_dict(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
