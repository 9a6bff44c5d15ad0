"""Check and time the FlashInfer library line (solutions/baselines/library.py) beside the former SDPA line
(lab/sdpa_gathered_line.py) and the house kernel, on the GPU. Measured on an H100 SXM on 2026-11-27:
lab/measurements/flashinfer_visible_h100.json and flashinfer_all_h100.json (.md, .log).

    python problems/paged_attention/lab/measure_flashinfer.py [--shapes visible|held_out|all|NAME,...]
        [--lines house,sdpa,flashinfer,flashinfer_run_only,flashinfer_other_path] [--min-calls 50]
        [--budget-s 3] [--out FILE.json]

Normally started by scripts/device_library_lines.sh, which installs FlashInfer from .whl/ first. For every
shape: weights and inputs from the problem's own make_weights / make_inputs (one draw, seed 1), the fp64
reference (problem.reference), each line's output checked against it within the problem's tolerance
(every element within atol + rtol*|ref|, and the normwise error within tolerance.normwise), then timed with
the scorer's timer (scoring.bench.time_calls: L2 flushed before each call, the launch gate, CUDA events; at
least --min-calls timed calls, median). GB/s and the fraction of the roofline use the problem's own
bytes_moved and flops (scoring.roofline). The lines:

  house                  solutions/house.py
  sdpa                   lab/sdpa_gathered_line.py (the library line until issue 37)
  flashinfer             solutions/baselines/library.py's run: plan() + run() in the call, as the contract
                         charges it (the library line)
  flashinfer_run_only    plan() once before timing, run() alone timed: what a serving stack pays per layer
                         when one plan serves every layer of a decode step (not what our contract measures)
  flashinfer_other_path  the tensor-core path where the line takes the CUDA-core one (G in 1, 2, 3, 4, 8)

One draw per shape: the inputs do not change between timed calls as the scorer's do (the flashinfer line
re-plans every call anyway). The first call of a FlashInfer path compiles its kernels (JIT, reported as
first_call_s, outside the timed calls). The JSON (hardware, versions, command, commit, rows) is rewritten
after every shape, so a run cut short keeps what it finished.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HERE = REPO / "problems" / "paged_attention"
LINES = ("house", "sdpa", "flashinfer", "flashinfer_run_only", "flashinfer_other_path")
MIN_CALLS = 50


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="visible", help="visible, held_out, all, or shape names, comma-separated")
    parser.add_argument("--lines", default=",".join(LINES), help=f"comma-separated, of {', '.join(LINES)}")
    parser.add_argument("--min-calls", type=int, default=MIN_CALLS, help=f"timed calls per line, >= {MIN_CALLS}")
    parser.add_argument("--budget-s", type=float, default=3.0, help="seconds of timed calls per line at most")
    default_out = os.path.join(os.environ["OUT"], "flashinfer_paged.json") if os.environ.get("OUT") else None
    parser.add_argument("--out", default=default_out, help="JSON file (default $OUT/flashinfer_paged.json)")
    args = parser.parse_args(argv)
    if args.min_calls < MIN_CALLS:
        parser.error(f"--min-calls must be >= {MIN_CALLS} (a median of fewer calls is not reported)")
    unknown = sorted(set(args.lines.split(",")) - set(LINES))
    if unknown:
        parser.error(f"unknown lines {unknown}; choose from {', '.join(LINES)}")
    return args


def format_table(rows):
    """A Markdown table: one row per (shape, line), a failed line with its error in the check column."""
    out = [
        "| shape | line | median us | GB/s | fraction of roofline | check |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['shape']} | {r['line']} | - | - | - | {r['error']} |")
            continue
        check = f"{'pass' if r['passed'] else 'FAIL'} (normwise {r['normwise']:.1e})"
        out.append(
            f"| {r['shape']} | {r['line']} | {r['median_us']:.1f} | {r['gbps']:.0f} | {r['fraction']:.3f} | {check} |"
        )
    return "\n".join(out)


def _select_shapes(spec, which):
    decks = {"visible": spec.gpu_shapes.visible, "held_out": spec.gpu_shapes.held_out}
    if which in decks:
        return list(decks[which])
    every = list(spec.gpu_shapes.visible) + list(spec.gpu_shapes.held_out)
    if which == "all":
        return every
    names = which.split(",")
    missing = sorted(set(names) - {s.name for s in every})
    if missing:
        raise SystemExit(f"unknown shapes {missing}")
    return [s for s in every if s.name in names]


def _commit():
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def main(argv=None):
    args = parse_args(argv)
    if not args.out:
        raise SystemExit("--out is required where $OUT is not set")
    sys.path.insert(0, str(REPO))
    import torch

    from scoring.bench import time_calls, timer_for
    from scoring.call_checks import within_tolerance
    from scoring.hardware import detect
    from scoring.problem import import_file, load_problem
    from scoring.roofline import roofline_point

    problem = load_problem(HERE)
    tol = problem.spec.tolerance
    house = import_file(HERE / "solutions" / "house.py", "pa_house", folder_importable=True)
    sdpa = import_file(HERE / "lab" / "sdpa_gathered_line.py", "pa_sdpa_gathered_line")
    wanted = args.lines.split(",")
    fi, fi_error = None, None
    try:
        fi = import_file(HERE / "solutions" / "baselines" / "library.py", "pa_flashinfer_line")
    except ImportError as exc:
        fi_error = f"{type(exc).__name__}: {exc}"
    device = torch.device("cuda")
    hw = detect("cuda", "bf16")
    timer = timer_for("cuda")
    record = {
        "what": "FlashInfer library line beside the former SDPA line and the house kernel (lab, not a score)",
        "command": [sys.executable, *sys.argv],
        "commit": _commit(),
        "hardware": hw.as_dict(),
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "triton": getattr(sys.modules.get("triton"), "__version__", None),
            "flashinfer": fi.library_version() if fi else fi_error,
        },
        "timer": timer.describe(),
        "timing": {"min_calls": args.min_calls, "budget_s_per_line": args.budget_s},
        "tolerance": {"rtol": tol.rtol, "atol": tol.atol, "normwise": tol.normwise},
        "rows": [],
    }
    rows = record["rows"]
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)

    for shape in _select_shapes(problem.spec, args.shapes):
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(1)
        weights = problem.module.make_weights(p, gen, device)
        inputs = problem.module.make_inputs(p, weights, gen, device)
        ref = problem.module.reference(weights, inputs)
        q, table, lens = inputs["q"], inputs["block_table"], inputs["seq_lens"]
        flops, nbytes = problem.flops(p), problem.bytes_moved(p)
        G = p["G"]

        def measure(line, fn, note=None):
            base = {"shape": shape.name, "set": shape.shape_set, "line": line, "params": p, "bytes_moved": nbytes}
            if note:
                base["note"] = note
            try:
                start = time.perf_counter()
                out = fn()
                torch.cuda.synchronize()
                first_call_s = time.perf_counter() - start
                stats = within_tolerance(out.double(), ref, tol, 1.0, "output elements")
                passed = bool(stats.passed and stats.normwise_err <= tol.normwise)
                timing = time_calls(
                    fn,
                    device=device,
                    timer=timer,
                    min_calls=args.min_calls,
                    max_calls=max(400, args.min_calls),
                    budget_s=args.budget_s,
                )
            except Exception as exc:  # a line that fails is a row, not the end of the run
                rows.append(dict(base, error=f"{type(exc).__name__}: {exc}"[:400]))
                print(f"{shape.name:24s} {line:22s} {rows[-1]['error']}", flush=True)
                return
            pt = roofline_point(flops, nbytes, timing.median_ms, hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps)
            rows.append(
                dict(
                    base,
                    passed=passed,
                    normwise=stats.normwise_err,
                    max_abs_err=stats.max_abs_err,
                    check_detail=stats.detail,
                    first_call_s=first_call_s,
                    median_us=timing.median_ms * 1e3,
                    p10_us=timing.p10_ms * 1e3,
                    p90_us=timing.p90_ms * 1e3,
                    calls=timing.count,
                    stop_reason=timing.stop_reason,
                    host_median_us=timing.host_median_ms * 1e3,
                    launch_median_us=timing.launch_median_ms * 1e3,
                    gbps=pt.achieved_gbps,
                    fraction=pt.fraction,
                    roofline_us=pt.roofline_ms * 1e3,
                )
            )
            print(
                f"{shape.name:24s} {line:22s} {timing.median_ms * 1e3:9.1f} us  {pt.achieved_gbps:6.0f} GB/s  "
                f"fraction {pt.fraction:.3f}  {'pass' if passed else 'FAIL'}  calls {timing.count}",
                flush=True,
            )

        cache = {"k_cache": weights["k_cache"], "v_cache": weights["v_cache"]}
        if "house" in wanted:
            measure("house", lambda: house.run(cache, q, table, lens))
        if "sdpa" in wanted:
            measure("sdpa", lambda: sdpa.run(cache, q, table, lens))
        if fi is None:
            for line in ("flashinfer", "flashinfer_run_only", "flashinfer_other_path"):
                if line in wanted:
                    rows.append({"shape": shape.name, "line": line, "error": fi_error})
        else:
            path = "tensor cores" if fi.use_tensor_cores(G, fi.TENSOR_CORES) else "CUDA cores"
            if "flashinfer" in wanted:
                state = fi.prepare(**cache)
                measure("flashinfer", lambda: fi.run(state, q, table, lens), note=f"plan + run per call, {path}")
                state = None
            if "flashinfer_run_only" in wanted:
                state, planned = fi.prepare(**cache), []

                def run_only():
                    if not planned:  # planned once, at the first (untimed) call
                        planned.append(fi.plan(state, q, table, lens))
                    return planned[0].run(q, state["kv"])

                measure("flashinfer_run_only", run_only, note=f"plan once before timing, run only, {path}")
                state = planned = None
            if "flashinfer_other_path" in wanted and path == "CUDA cores":
                state = fi.prepare(**cache)
                measure(
                    "flashinfer_other_path",
                    lambda: fi.plan(state, q, table, lens, mode="tensor_cores").run(q, state["kv"]),
                    note="plan + run per call, tensor cores",
                )
                state = None
        weights = inputs = ref = q = table = lens = cache = None  # rebinding: the closures above read these
        torch.cuda.empty_cache()
        out_path.write_text(json.dumps(record, indent=1))
        out_path.with_suffix(".md").write_text(format_table(rows) + "\n")

    out_path.write_text(json.dumps(record, indent=1))
    out_path.with_suffix(".md").write_text(format_table(rows) + "\n")
    print("\n" + format_table(rows))


if __name__ == "__main__":
    main()
