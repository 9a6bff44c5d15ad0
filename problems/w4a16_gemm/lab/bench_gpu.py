"""Measure the house W4A16 kernel's configurations, tinygemm and the dequantise + cuBLAS line on the GPU.

    python problems/w4a16_gemm/lab/bench_gpu.py --out FILE.json        # config sweep
    python problems/w4a16_gemm/lab/bench_gpu.py --ncu-target SHAPE,...  # one call per shape in NVTX ranges

For every visible and held-out shape: each config's median time (scoring.bench.time_calls: the scorer's
timer), fraction of the roofline and error against the fp64 reference, with tinygemm
(torch._weight_int4pack_mm, repacked beforehand) and eager dequantise + torch.mm beside it. With
--ncu-target the script runs the house kernel and the eager line once per named shape inside NVTX ranges
`house_<shape>` / `eager_<shape>`, for Nsight Compute's dram__bytes_read.sum (see NOTES.md).
A tuning aid, not a score: the score is scoring.run's.
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

HERE = REPO / "problems" / "w4a16_gemm"

# Per config: a sweep ranks configs with the scorer's timer (scoring.bench); the scoring run is the measurement.
BUDGET_S = 2.0
# Candidate configs by M class; SPLIT_K None keeps the pick rule's split.
GEMV = [dict(KERNEL="gemv", BLOCK_N=bn, num_warps=w, num_stages=st, SPLIT_K=sp)
        for bn, w, st, sp in [(128, 4, 3, None), (64, 4, 3, None), (256, 4, 3, None), (512, 8, 3, None),
                              (256, 8, 3, None), (128, 4, 2, None), (128, 4, 4, None), (128, 4, 3, 1),
                              (128, 4, 3, 2), (128, 4, 3, 4), (256, 4, 3, 2), (256, 4, 4, 4), (64, 2, 4, 2)]]
GEMV += [dict(KERNEL="mma", BLOCK_M=16, BLOCK_N=64, num_warps=4, num_stages=3, SPLIT_K=None)]
SMALL_M = [dict(KERNEL="mma", BLOCK_N=bn, num_warps=w, num_stages=st, SPLIT_K=sp)
           for bn, w, st, sp in [(64, 4, 3, None), (32, 4, 3, None), (128, 4, 3, None), (64, 4, 2, None),
                                 (64, 4, 4, None), (64, 2, 3, None), (64, 4, 3, 1), (64, 4, 3, 2), (64, 4, 3, 4),
                                 (64, 4, 3, 8), (128, 4, 3, 4)]]
LARGE_M = [dict(KERNEL="mma", BLOCK_M=bm, BLOCK_N=bn, num_warps=w, num_stages=st, SPLIT_K=1)
           for bm, bn, w, st in [(128, 128, 8, 3), (128, 128, 4, 3), (128, 256, 8, 3), (64, 128, 4, 3),
                                 (128, 64, 4, 3), (256, 128, 8, 2), (128, 128, 8, 4), (64, 256, 8, 3)]]


def shapes_by_name(problem):
    return {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}


def setup(problem, shape, device):
    p = dict(shape.params)
    gen = torch.Generator(device=device).manual_seed(1)
    w = problem.module.make_weights(p, gen, device)
    x = problem.module.make_inputs(p, w, gen, device)
    return p, w, x


def ncu_target(problem, house, eager, names):
    device = torch.device("cuda")
    for name in names:
        p, w, x = setup(problem, shapes_by_name(problem)[name], device)
        state = house.prepare(**w)
        for _ in range(2):  # compile and warm up outside the ranges
            house.run(state, x["x"])
            eager.run(w, x["x"])
        torch.cuda.synchronize()
        for label, fn in (("house", lambda: house.run(state, x["x"])), ("eager", lambda: eager.run(w, x["x"]))):
            torch.cuda.nvtx.range_push(f"{label}_{name}")
            fn()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
        print(name, "bytes formula", problem.bytes_moved(p), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="")
    parser.add_argument("--ncu-target", default="")
    args = parser.parse_args()
    problem = load_problem(HERE)
    sys.path.insert(0, str(HERE / "solutions" / "baselines"))
    house = import_file(HERE / "solutions" / "house.py", "w4_house")
    eager = import_file(HERE / "solutions" / "baselines" / "eager.py", "w4_eager")
    library = import_file(HERE / "lab" / "tinygemm_line.py", "w4_tinygemm_line")  # the pre-issue-37 line
    if args.ncu_target:
        return ncu_target(problem, house, eager, args.ncu_target.split(","))
    print(torch._C._jit_get_schemas_for_operator("aten::_convert_weight_to_int4pack"))
    print(torch._C._jit_get_schemas_for_operator("aten::_weight_int4pack_mm"))
    hw = detect("cuda", "bf16")
    peak_tflops, peak_gbps = hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps
    device = torch.device("cuda")
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    rows = []
    for shape in shapes_by_name(problem).values():
        p, w, x = setup(problem, shape, device)
        M, N, K = p["M"], p["N"], p["K"]
        ref = problem.module.reference(w, x)
        flops, nbytes = problem.flops(p), problem.bytes_moved(p)
        state = house.prepare_triton(**w)  # this bench sweeps the house's Triton kernels

        def record(name, fn):
            try:
                out = fn()
                torch.cuda.synchronize()
                err = float(((out.double() - ref).norm() / ref.norm()).item())
                ms = median_ms(fn, device=device, budget_s=BUDGET_S)
            except Exception as exc:
                rows.append({"shape": shape.name, "variant": name, "error": f"{type(exc).__name__}: {exc}"[:300]})
                print(rows[-1], flush=True)
                return
            pt = roofline_point(flops, nbytes, ms, peak_tflops, peak_gbps)
            rows.append({"shape": shape.name, "variant": name, "ms": ms, "tflops": pt.achieved_tflops,
                         "gbps": pt.achieved_gbps, "fraction": pt.fraction, "bound": pt.bound, "normwise_err": err})
            print(f"{shape.name:24s} {name:40s} {ms*1e3:9.1f} us  {pt.achieved_tflops:6.1f} TF "
                  f"{pt.achieved_gbps:6.0f} GB/s"
                  f"  frac {pt.fraction:.3f}  err {err:.2e}", flush=True)

        record("house-pick " + str(house.pick_config(M, N, K, sms)), lambda: house.run_triton(state, x["x"]))
        candidates = GEMV if M == 1 else SMALL_M if M <= 64 else LARGE_M
        for candidate in candidates:
            cfg = dict(house.pick_config(M, N, K, sms))
            cfg.update({k: v for k, v in candidate.items() if v is not None})
            if cfg["KERNEL"] == "gemv":
                cfg.pop("BLOCK_M", None)
            elif "BLOCK_M" not in cfg:
                cfg["BLOCK_M"] = max(16, triton.next_power_of_2(M))
            name = " ".join(f"{k}={v}" for k, v in sorted(cfg.items()))
            record(name, lambda cfg=cfg: house.w4a16_gemm(x["x"], state["words"], state["scales"], state["zeros"],
                                                          state["counters"], config=cfg))
        try:
            lib_state = library.prepare(**w)
            record("tinygemm", lambda: library.run(lib_state, x["x"]))
        except Exception as exc:
            rows.append({"shape": shape.name, "variant": "tinygemm", "error": f"{type(exc).__name__}: {exc}"[:300]})
            print(rows[-1], flush=True)
        record("eager dequant+mm", lambda: eager.run(w, x["x"]))
        w = x = ref = state = None  # free this shape (rebinding, not del: the closures above read these names)
        torch.cuda.empty_cache()
    record = {"hardware": hw.as_dict(), "torch": torch.__version__, "rows": rows}
    Path(args.out).write_text(json.dumps(record, indent=1))
    print("\nbest per shape:")
    for name in shapes_by_name(problem):
        ok = [r for r in rows if r["shape"] == name and "fraction" in r]
        house_rows = [r for r in ok if r["variant"] not in ("tinygemm", "eager dequant+mm")]
        best = max(house_rows, key=lambda r: r["fraction"], default={})
        pick = next((r for r in ok if r["variant"].startswith("house-pick")), {})
        lib = next((r for r in ok if r["variant"] == "tinygemm"), {})
        print(f"{name:24s} pick {pick.get('fraction', 0):.3f} best {best.get('fraction', 0):.3f} "
              f"({best.get('variant')}) "
              f"tinygemm {lib.get('fraction', 0):.3f}")


if __name__ == "__main__":
    main()
