"""Check and time gemlite (solutions/baselines/library.py, the library line since issue 37) against tinygemm
(lab/tinygemm_line.py, the library line before it) and the house kernel on the GPU, in one run. Measured on an
H100 SXM on 2026-11-27: lab/measurements/gemlite_visible_h100.json and .log.

How to call it (a lent GPU machine; gemlite is not installed there and the machine has no network):
    here:   commit, then `bash scripts/device_head.sh pack`; .whl/ holds gemlite-0.6.0.post2-py3-none-any.whl
            and tqdm-*.whl (problems/w4a16_gemm/NOTES.md, "gemlite line": how they were fetched)
            device run with carry [".whl", ".scratch/head.commit"]:
    there:  bash scripts/device_w4a16_line.sh [--shapes all] [--lines gemlite,tinygemm,house]
            (it runs `bash scripts/device_head.sh unpack` first, installs the two wheels with
            `pip install --no-index --no-deps --target`, then this script with --out $OUT/w4a16_gemlite.json)
    or by hand: python problems/w4a16_gemm/lab/measure_gemlite.py --out F.json [--shapes a,b|visible|all]
                [--lines ...] [--min-calls 50] [--budget-s 4]

Per shape (problem.toml's GPU shapes, visible by default) the inputs come from the problem's own make_weights /
make_inputs (seeded generator on the GPU) and the reference is the problem's fp64 reference. Per line:
prepare() once (its wall time recorded, not scored), a first call checked with scoring.checking.compare at the
problem's tolerance (its autotune / compile time recorded), then scoring.bench.time_calls (the scorer's timer:
CUDA events, the L2 flushed and read back before every call, warm-up, at least --min-calls timed calls, the
median), and a second check after timing (split-K kernels reuse their output and atomics). The roofline
fraction, TFLOPS and GB/s come from the problem's flops() / bytes_moved() and scoring.hardware's peaks
(scoring.roofline.roofline_point). A line's error (import, compile, launch) is recorded and the run goes on.

Lines: gemlite (gemlite's defaults: native bf16 atomics in its split-K kernels on sm_90; fails the check at
decode_m1_70b_up), gemlite_fp32_atomics (gemlite.set_native_atomic_bfp16(False): the library line as committed),
both from solutions/baselines/library.py with gemlite's setting switched before each, tinygemm
(lab/tinygemm_line.py), house (solutions/house.py).
The JSON holds the hardware, versions (torch, triton, gemlite, each line's library_version()), git HEAD, the
command line, and one row per (shape, line); the last lines printed are a table of fractions with the geomean
over the visible shapes.
"""

import argparse
import functools
import json
import subprocess
import sys
import time
import traceback
from pathlib import Path

LAB = Path(__file__).resolve().parent
PROBLEM_DIR = LAB.parent
REPO = PROBLEM_DIR.parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from scoring.problem import import_file, load_problem
from scoring.roofline import geomean

LINES = ("gemlite", "gemlite_fp32_atomics", "tinygemm", "house")
MIN_CALLS = 50


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file written after every row")
    parser.add_argument("--shapes", default="visible", help="visible (default), all, or comma-separated names")
    parser.add_argument("--lines", default=",".join(LINES), help=f"comma-separated, of {', '.join(LINES)}")
    parser.add_argument("--min-calls", type=int, default=MIN_CALLS, help="timed calls at least (median of them)")
    parser.add_argument("--budget-s", type=float, default=4.0, help="timing budget per (shape, line)")
    parser.add_argument(
        "--device",
        default="cuda",
        choices=("cuda", "cpu"),
        help="cpu: a smoke test of this script on the problem's CPU shapes (tinygemm has a CPU path; gemlite "
        "and the house's CUDA kernels do not): no measurement",
    )
    args = parser.parse_args(argv)
    args.lines = [name for name in args.lines.split(",") if name]
    unknown = sorted(set(args.lines) - set(LINES))
    if unknown:
        parser.error(f"unknown lines {unknown}; known: {', '.join(LINES)}")
    if args.min_calls < MIN_CALLS:
        parser.error(f"--min-calls {args.min_calls}: the median is of at least {MIN_CALLS} calls")
    return args


def select_shapes(spec, which: str, profile: str = "gpu"):
    """(shapes, visible names) for --shapes: 'visible', 'all' (visible then held-out) or comma-separated names,
    from problem.toml's deck for `profile` ('gpu', or 'cpu' for --device cpu)."""
    deck = spec.shapes_for(profile)
    visible, held_out = list(deck.visible), list(deck.held_out)
    visible_names = [s.name for s in visible]
    if which == "visible":
        return visible, visible_names
    if which == "all":
        return visible + held_out, visible_names
    by_name = {s.name: s for s in visible + held_out}
    names = [n for n in which.split(",") if n]
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SystemExit(f"unknown shapes {missing}; known: {', '.join(by_name)}")
    return [by_name[n] for n in names], visible_names


def table(rows, shape_names, visible_names, lines) -> str:
    """Fraction of the roofline per line and shape (0 where it failed or erred), and the visible geomean."""
    short = {name: name.split("_")[1] for name in shape_names}  # m1, m16, ...
    by_key = {(r["line"], r["shape"]): r for r in rows}
    out = [f"{'line':22s} " + " ".join(f"{short[n]:>7s}" for n in shape_names) + "  geomean(visible)"]
    for line in lines:
        fractions = [by_key.get((line, n), {}).get("fraction", 0.0) for n in shape_names]
        visible = [f for n, f in zip(shape_names, fractions) if n in visible_names]
        gm = geomean(visible) if visible else float("nan")
        out.append(f"{line:22s} " + " ".join(f"{f:7.3f}" for f in fractions) + f"  {gm:.3f}")
    bad = [r for r in rows if "error" in r or not r.get("passed", False)]
    out.append(f"{len(bad)} (shape, line) with errors or failed checks")
    out += [f"  {r['shape']:24s} {r['line']:22s} {r.get('error', 'failed check')[:160]}" for r in bad]
    return "\n".join(out)


@functools.cache
def _gemlite_line():
    """solutions/baselines/library.py imported once: both gemlite lines share it and gemlite's global setting
    (the file sets fp32 atomics at import; each line's setup() puts its own setting back before prepare)."""
    return import_file(PROBLEM_DIR / "solutions" / "baselines" / "library.py", "w4_gemlite_line")


def load_lines(names):
    """name -> (module, setup()) where setup() puts gemlite's global setting for that line in place."""
    loaded = {}
    for name in names:
        if name == "tinygemm":
            loaded[name] = (import_file(LAB / "tinygemm_line.py", "w4_tinygemm"), None)
        elif name == "house":
            loaded[name] = (import_file(PROBLEM_DIR / "solutions" / "house.py", "w4_house"), None)
        else:
            gemlite_line = _gemlite_line()
            fp32 = name == "gemlite_fp32_atomics"
            loaded[name] = (gemlite_line, lambda m=gemlite_line, fp32=fp32: m.gemlite.set_native_atomic_bfp16(not fp32))
    return loaded


def _git_head():
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return None


def main(argv=None):
    args = parse_args(argv)
    import torch
    import triton

    from scoring.bench import time_calls
    from scoring.checking import compare
    from scoring.hardware import detect
    from scoring.roofline import roofline_point

    started = time.time()
    problem = load_problem(PROBLEM_DIR)
    shapes, visible_names = select_shapes(problem.spec, args.shapes, "cpu" if args.device == "cpu" else "gpu")
    hw = detect(args.device, "bf16")
    peak_tflops, peak_gbps = hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps
    print(f"hardware {hw.as_dict()}", flush=True)
    device = torch.device(args.device)

    def synchronize():
        if device.type == "cuda":
            torch.cuda.synchronize()

    tolerance = problem.spec.tolerance
    record = {
        "command": " ".join([sys.executable, *sys.argv]),
        "git_head": _git_head(),
        "hardware": hw.as_dict(),
        "versions": {"torch": torch.__version__, "triton": triton.__version__, "python": sys.version.split()[0]},
        "timer": f"scoring.bench.time_calls (L2 flush before each call), min_calls {args.min_calls}, "
        f"budget_s {args.budget_s}",
        "rows": [],
    }
    lines = {}
    for name in args.lines:
        try:
            lines.update(load_lines([name]))
            version = getattr(lines[name][0], "library_version", None)
            record["versions"][name] = version() if version else getattr(lines[name][0], "LABEL", name)
        except Exception as exc:  # noqa: BLE001  gemlite absent or broken: record it, time the others
            record["versions"][name] = f"not available: {type(exc).__name__}: {exc}"[:500]
            print(f"{name}: {record['versions'][name]}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for shape in shapes:
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(1)
        weights = problem.module.make_weights(p, gen, device)
        inputs = problem.module.make_inputs(p, weights, gen, device)
        x = inputs["x"]
        ref = problem.module.reference(weights, inputs)
        flops, nbytes = problem.flops(p), problem.bytes_moved(p)
        for name in args.lines:
            row = {"shape": shape.name, "line": name, **p}
            if name not in lines:
                row["error"] = record["versions"][name]
                record["rows"].append(row)
                continue
            module, setup = lines[name]
            try:
                if setup:
                    setup()
                t0 = time.time()
                state = module.prepare(**weights)
                synchronize()
                row["prepare_s"] = time.time() - t0
                t0 = time.time()
                first = module.run(state, x)
                synchronize()
                row["first_call_s"] = time.time() - t0  # compilation and autotune included
                stats = compare(first, ref, tolerance)
                timing = time_calls(
                    lambda module=module, state=state, x=x: module.run(state, x),
                    device=device,
                    min_calls=args.min_calls,
                    budget_s=args.budget_s,
                )
                again = compare(module.run(state, x), ref, tolerance)
                passed = stats.passed and again.passed
                pt = roofline_point(flops, nbytes, timing.median_ms, peak_tflops, peak_gbps)
                row.update(
                    passed=passed,
                    normwise_err=max(stats.normwise_err, again.normwise_err),
                    max_abs_err=max(stats.max_abs_err, again.max_abs_err),
                    ms=timing.median_ms,
                    p10_ms=timing.p10_ms,
                    p90_ms=timing.p90_ms,
                    calls=timing.count,
                    stop_reason=timing.stop_reason,
                    launch_us=timing.launch_median_ms * 1e3,
                    tflops=pt.achieved_tflops,
                    gbps=pt.achieved_gbps,
                    bound=pt.bound,
                    raw_fraction=pt.fraction,
                    fraction=pt.fraction if passed else 0.0,
                )
                print(
                    f"{shape.name:24s} {name:22s} {timing.median_ms * 1e3:8.1f} us {pt.achieved_tflops:6.1f} TF "
                    f"{pt.achieved_gbps:6.0f} GB/s frac {pt.fraction:.3f} ({pt.bound}) err {row['normwise_err']:.1e} "
                    f"{'ok' if passed else 'FAILED CHECK'}  calls {timing.count}  first call {row['first_call_s']:.1f} s",
                    flush=True,
                )
            except Exception as exc:  # noqa: BLE001  a compile or launch error: record it, go on
                row["error"] = f"{type(exc).__name__}: {exc}"[:3000]
                row["traceback"] = traceback.format_exc()[-3000:]
                print(f"{shape.name:24s} {name:22s} ERROR {row['error'][:300]}", flush=True)
            finally:
                state = first = None
            record["rows"].append(row)
            record["wall_s"] = time.time() - started
            out.write_text(json.dumps(record, indent=1))
        weights = inputs = x = ref = None
        if device.type == "cuda":
            torch.cuda.empty_cache()
    if "gemlite_fp32_atomics" in lines:
        lines["gemlite_fp32_atomics"][0].gemlite.set_native_atomic_bfp16(True)  # gemlite's default back
    summary = table(record["rows"], [s.name for s in shapes], visible_names, args.lines)
    record["table"] = summary
    out.write_text(json.dumps(record, indent=1))
    print(f"\nwall {time.time() - started:.0f} s; results in {out}\n\n{summary}", flush=True)


if __name__ == "__main__":
    main()
