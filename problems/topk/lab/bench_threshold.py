"""The house top-k's dispatch variants (VARIANTS in solutions/house.py) against each other on the GPU (a tuning aid).

    python problems/topk/lab/bench_threshold.py [--out FILE.json] [--shapes all|visible|held_out|NAME,...]
        [--variants buf32,buf16,...] [--budget-s 1.0] [--deadline-s 180] [--no-breakdown] [--no-nan]
        [--stages-variant buf16_short] [--no-house]

Per shape (one draw, seed 7, as the former bench_topk.py drew): every line is checked with problem.py's check (and its
per-call verify_call), then timed with the scorer's timer (scoring.bench.median_ms: L2 flush, launch gate,
CUDA events) as a fraction of the memory roofline (problem.bytes_moved over the datasheet bandwidth). Lines:
the house (solutions/house.py as the scorer calls it: its DEFAULT_VARIANT), every variant named, and `x.amax(1)` (one read of the input, not
a top-k: the ceiling a one-read kernel could reach; NaN shapes have none). A line that fails its check is
timed anyway and marked. With the breakdown on, the kernels of --stages-variant's dispatch (default
buf16_short) are also timed (sample, threshold, filter, final: each as the time of the call's prefix ending
with it less the prefix before, every prefix run whole, so a launch gap counts in the stage after it; a shape
on the short-row path has one kernel, `short`) and printed as each shape ends; --no-house drops the house line. The JSON (--out) is rewritten after every shape. The two NaN-family
shapes (as the former bench_topk.py had them) are checked (not timed, not in the geomeans) unless --no-nan. Timing stops at
--deadline-s (whatever is left is recorded as skipped) so the script ends inside ~200 s. The last
lines printed are the table: per shape each line's us and fraction; per line the geomean over visible,
held-out and all shapes, and held-out / visible.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch
import triton

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))

from scoring.problem import import_file, load_problem  # noqa: E402
from scoring.spec import Shape  # noqa: E402

NAN_SHAPES = (
    Shape("nan_32000", "extra", {"batch": 1000, "n": 32000, "k": 20, "family": 4}),
    Shape("nan_argmax_64k", "extra", {"batch": 512, "n": 65536, "k": 1, "family": 4}),
)
SEED = 7


def pick_shapes(problem, which: str, device_type: str):
    shapes = problem.spec.gpu_shapes if device_type == "cuda" else problem.spec.cpu_shapes
    if which in ("all", "visible", "held_out"):
        return [s for s in shapes.visible + shapes.held_out if which in ("all", s.shape_set)]
    names = which.split(",")
    chosen = [s for s in shapes.visible + shapes.held_out if s.name in names]
    missing = set(names) - {s.name for s in chosen}
    if missing:
        raise SystemExit(f"unknown shapes {sorted(missing)}")
    return chosen


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="", help="write every measurement to this JSON file")
    parser.add_argument("--shapes", default="all", help="all, visible, held_out, or shape names joined by commas")
    parser.add_argument("--variants", default="", help="candidate variants joined by commas (default: all)")
    parser.add_argument("--budget-s", type=float, default=1.0, help="timing budget per line and shape")
    parser.add_argument("--deadline-s", type=float, default=180.0, help="no timing starts after this many seconds")
    parser.add_argument("--no-breakdown", action="store_true", help="skip the per-kernel timing")
    parser.add_argument("--no-nan", action="store_true", help="skip the NaN-family checks")
    parser.add_argument("--no-house", action="store_true", help="skip the house line")
    parser.add_argument("--stages-variant", default="buf16_short", help="the variant whose kernels the breakdown times")
    parser.add_argument("--device", default="cuda", help="cuda, or cpu (with TRITON_INTERPRET=1: a dry run)")
    args = parser.parse_args()
    started = time.perf_counter()

    # Imported here so that --help needs neither a GPU nor the scorer's timer.
    from scoring.bench import median_ms
    from scoring.hardware import detect

    problem = load_problem(REPO / "problems" / "topk")
    house = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", "house")
    candidate = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", "house_threshold")
    variants = args.variants.split(",") if args.variants else list(candidate.VARIANTS)
    unknown = [v for v in variants + [args.stages_variant] if v not in candidate.VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; known: {sorted(candidate.VARIANTS)}")
    device = torch.device(args.device)
    # The CPU dry run names its peaks (1 TFLOPS, 50 GB/s) instead of measuring them: its fractions mean nothing.
    hw = detect("cuda", "fp32") if device.type == "cuda" else detect("cpu", "fp32", 1.0, 50.0)
    bandwidth_gbps = hw.peak.bandwidth_gbps
    sms = candidate.sm_count(device)
    shapes = pick_shapes(problem, args.shapes, device.type)
    extra = [] if args.no_nan or device.type != "cuda" else list(NAN_SHAPES)
    line_names = ([] if args.no_house else ["house"]) + [f"thr:{v}" for v in variants] + ["amax (1 read)"]

    def out_of_time():
        return time.perf_counter() - started > args.deadline_s

    def summarize(rows):
        summary = {}
        scored = [r for r in rows if r["set"] != "extra"]
        for name in line_names:

            def fractions(rs, name=name):
                return [r["lines"][name]["fraction"] for r in rs if "fraction" in r["lines"].get(name, {})]

            per_set = {}
            for which in ("visible", "held_out"):
                in_set = [r for r in scored if r["set"] == which]
                fr = fractions(in_set)
                per_set[which] = geomean(fr) if fr and len(fr) == len(in_set) else float("nan")
            every = fractions(scored)
            summary[name] = {
                "visible": per_set["visible"],
                "held_out": per_set["held_out"],
                "all": geomean(every) if every and len(every) == len(scored) else float("nan"),
                "score": math.sqrt(per_set["visible"] * per_set["held_out"]),
                "held_out_over_visible": per_set["held_out"] / per_set["visible"],
                "all_passed": all(r["lines"].get(name, {}).get("passed") is not False for r in rows),
            }
        return summary

    def write_json(rows):
        result = {
            "hardware": hw.as_dict(),
            "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
            "torch": torch.__version__,
            "triton": triton.__version__,
            "argv": sys.argv[1:],
            "elapsed_s": time.perf_counter() - started,
            "rows": rows,
            "summary": summarize(rows),
        }
        if args.out:
            Path(args.out).write_text(json.dumps(result, indent=1, default=str))
        return result

    rows = []
    for shape in shapes + extra:
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(SEED)
        inputs = problem.module.make_inputs(p, {}, gen, device)
        x, k = inputs["x"], inputs["k"]
        ref = problem.module.reference({}, inputs)
        roof_ms = problem.bytes_moved(p) / (bandwidth_gbps * 1e9) * 1e3
        lines = {} if args.no_house else {"house": lambda x=x, k=k: house.topk_indices(x, k)}
        configs = {}
        for v in variants:
            configs[f"thr:{v}"] = candidate.pick_config(p["batch"], p["n"], k, sms, v)
            lines[f"thr:{v}"] = lambda x=x, k=k, cfg=configs[f"thr:{v}"]: candidate.topk_indices(x, k, cfg)
        row = {
            "shape": shape.name,
            "set": shape.shape_set,
            "params": p,
            "roofline_ms": roof_ms,
            "lines": {},
            "configs": {name: {key: val for key, val in cfg.items()} for name, cfg in configs.items()},
        }
        for name, fn in lines.items():
            entry = row["lines"].setdefault(name, {})
            try:
                out = fn()
                stats = problem.module.check(out, ref, {}, inputs, problem.spec.tolerance)
                verified = problem.module.verify_call(out, {}, inputs, None, problem.spec.tolerance)
                entry.update(passed=bool(stats.passed and verified.passed), detail=stats.detail or verified.detail)
            except Exception as exc:  # a line that does not compile or run is recorded, not fatal
                entry.update(passed=False, detail=f"{type(exc).__name__}: {exc}"[:400])
                lines[name] = None
        if shape.shape_set != "extra":
            lines["amax (1 read)"] = lambda x=x: x.amax(1)
            row["lines"]["amax (1 read)"] = {"passed": None, "detail": "not a top-k: one read of x"}
            for name, fn in lines.items():
                entry = row["lines"][name]
                if fn is None:
                    continue
                if out_of_time():
                    entry["skipped"] = "deadline"
                    continue
                ms = median_ms(fn, device=device, budget_s=args.budget_s)
                entry.update(median_ms=ms, fraction=roof_ms / ms)
            if not args.no_breakdown and not out_of_time():
                stage_cfg = candidate.pick_config(p["batch"], p["n"], k, sms, args.stages_variant)
                stages = candidate.launch_stages(x, k, stage_cfg)
                for stage in stages["order"]:
                    stages[stage]()  # in order once, so each stage times on its real inputs
                # Read before timing: repeated filter calls keep adding to the counters (the threshold kernel
                # zeroes them), which only makes later filter calls skip their stores.
                if stages["info"] is not None:
                    counted = stages["info"][:, 2]
                    row["candidates_per_row"] = {
                        "mean": float(counted.float().mean()),
                        "max": int(counted.max()),
                        "gt_slots": stage_cfg["GT_SLOTS"],
                        "tie_mode_rows": int(stages["info"][:, 1].sum()),
                    }
                row["breakdown_variant"] = args.stages_variant
                # Each stage's time as the difference of two prefixes of the call (sample; sample + threshold;
                # ...), every prefix run whole: a stage timed alone in a loop is not the stage in the call
                # (filter calls repeated without the threshold kernel's reset fill the slots, and every later
                # `final` then takes the whole-row fallback: 1.8-22 ms in the 2026-11-28 record, against a
                # 58-112 us call).
                order = stages["order"]
                prefix_ms = [
                    median_ms(
                        lambda upto=i: [stages[stage]() for stage in order[: upto + 1]],
                        device=device,
                        budget_s=args.budget_s / 2,
                    )
                    for i in range(len(order))
                ]
                row["breakdown_ms"] = {
                    stage: prefix_ms[i] - (prefix_ms[i - 1] if i else 0.0) for i, stage in enumerate(order)
                }
                parts = "  ".join(f"{stage}={ms * 1e3:.1f}" for stage, ms in row["breakdown_ms"].items())
                total = sum(row["breakdown_ms"].values()) * 1e3
                print(f"    stages {args.stages_variant} (us): {parts}  sum={total:.1f}", flush=True)
        rows.append(row)
        fails = [name for name, e in row["lines"].items() if e.get("passed") is False]
        timed = "  ".join(f"{name}={e['fraction']:.3f}" for name, e in row["lines"].items() if "fraction" in e)
        print(f"[{time.perf_counter() - started:6.1f}s] {shape.name:<20} {timed}  fails={fails}", flush=True)

        write_json(rows)

    result = write_json(rows)
    summary = result["summary"]

    # The table, last: per shape "us fraction" per line, then the geomeans.
    width = 16
    print()
    print(f"{'shape':<22}" + "".join(f"{name[:width]:>{width}}" for name in line_names))
    for r in rows:
        if r["set"] == "extra":
            continue
        cells = []
        for name in line_names:
            e = r["lines"].get(name, {})
            mark = "" if e.get("passed") is not False else "!"
            cells.append(f"{e['median_ms'] * 1e3:.0f}us {e['fraction']:.3f}{mark}" if "fraction" in e else "skipped")
        print(f"{r['shape'][:21]:<22}" + "".join(f"{c:>{width}}" for c in cells))
    for label, key in (
        ("geomean visible", "visible"),
        ("geomean held-out", "held_out"),
        ("geomean all", "all"),
        ("score sqrt(v*h)", "score"),
        ("held-out / visible", "held_out_over_visible"),
    ):
        print(f"{label:<22}" + "".join(f"{summary[name][key]:>{width}.3f}" for name in line_names))
    failed = [name for name in line_names if not summary[name]["all_passed"]]
    checked_nan = [r for r in rows if r["set"] == "extra"]
    nan_fails = [f"{r['shape']}: {n}" for r in checked_nan for n, e in r["lines"].items() if e.get("passed") is False]
    nan_note = (nan_fails or "none") if checked_nan else "not checked"
    print(f"lines with a failed check (! above): {failed or 'none'}; NaN-shape failures: {nan_note}")
    print(f"device {result['device']}, {bandwidth_gbps} GB/s datasheet, {sms} SMs, {result['elapsed_s']:.0f} s")


if __name__ == "__main__":
    main()
