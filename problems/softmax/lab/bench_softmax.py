"""Accuracy and speed of softmax kernels on the GPU (a measurement aid, not a score).

    python problems/softmax/lab/bench_softmax.py [--out FILE.json] [--sweep]

For every visible and held-out shape (one draw each): the worst relative error against the fp64 reference
(over elements above the absolute floor) and the number of elements outside the problem's tolerance for
torch.softmax in fp32, the known-wrong plain online-softmax Triton kernel and the house kernel; then the
median time (scoring.bench.time_calls: the scorer's timer) and fraction of the memory roofline for
torch.softmax, the online kernel and the house kernel (with --sweep, several house configurations). This is
the naive-softmax
demonstration the problem's tolerance rests on: the careless kernels must fail, the house kernel pass.
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

# Per config: a sweep ranks configs with the scorer's timer (scoring.bench); the scoring run is the measurement.
BUDGET_S = 2.0

CONFIGS = [dict(CHUNK=4096, num_warps=4), dict(CHUNK=8192, num_warps=8), dict(CHUNK=16384, num_warps=16)]


def errors(out, ref, tol):
    out64 = out.double()
    err = (out64 - ref).abs()
    significant = ref.abs() > tol.atol
    rel = float((err[significant] / ref.abs()[significant]).max().item())
    bad = int((err > tol.atol + tol.rtol * ref.abs()).sum().item()) + int((~torch.isfinite(out64)).sum().item())
    return {"max_rel_err": rel, "elements_outside_tolerance": bad, "passes": bad == 0}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="")
    parser.add_argument("--sweep", action="store_true", help="also time several house configurations")
    args = parser.parse_args()
    problem = load_problem(REPO / "problems" / "softmax")
    solutions = REPO / "problems" / "softmax" / "solutions"
    house = import_file(solutions / "house.py", "house")
    online = import_file(solutions / "wrong" / "online_softmax_fp32.py", "online")
    hw = detect("cuda", "fp32")
    peak_gbps = hw.peak.bandwidth_gbps
    tol = problem.spec.tolerance
    device = torch.device("cuda")
    rows = []
    for shape in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out:
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(7)
        x = problem.module.make_inputs(p, {}, gen, device)["x"]
        ref = problem.module.reference({}, {"x": x})
        roof_ms = problem.bytes_moved(p) / (peak_gbps * 1e9) * 1e3
        row = {"shape": shape.name, "set": shape.shape_set, "params": p, "roofline_ms": roof_ms,
               "accuracy": {"torch.softmax fp32": errors(torch.softmax(x, -1), ref, tol),
                            "online_softmax_fp32 (Triton)": errors(online.run({}, x), ref, tol),
                            "house": errors(house.run({}, x), ref, tol)},
               "timing_ms": {}}
        ref = None  # free this shape (rebinding, not del: the closures above read the name)
        candidates = {"torch.softmax fp32": lambda: torch.softmax(x, -1),
                      "online_softmax_fp32 (Triton)": lambda: online.run({}, x)}
        for cfg in CONFIGS if args.sweep else []:
            candidates[f"house CHUNK={cfg['CHUNK']} w={cfg['num_warps']}"] = lambda cfg=cfg: house.softmax(x, cfg)
        candidates["house (pick_config)"] = lambda: house.run({}, x)
        for name, fn in candidates.items():
            ms = median_ms(fn, device=device, budget_s=BUDGET_S)
            row["timing_ms"][name] = {"median_ms": ms, "fraction": roof_ms / ms}
        rows.append(row)
        acc = "  ".join(f"{k.split()[0]}={v['max_rel_err']:.2e}{'' if v['passes'] else '(FAIL)'}"
                        for k, v in row["accuracy"].items())
        best = max((v["fraction"], k) for k, v in row["timing_ms"].items() if k.startswith("house"))
        print(f"{shape.name:<22} {acc}  torch={row['timing_ms']['torch.softmax fp32']['fraction']:.3f} "
              f"online={row['timing_ms']['online_softmax_fp32 (Triton)']['fraction']:.3f} "
              f"house_pick={row['timing_ms']['house (pick_config)']['fraction']:.3f} best={best[1]}:{best[0]:.3f}",
              flush=True)
    result = {"hardware": hw.as_dict(), "torch": torch.__version__, "triton": triton.__version__,
              "tolerance": tol.__dict__, "rows": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
