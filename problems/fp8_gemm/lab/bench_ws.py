"""Issue 37: time the warp-specialised candidate's variants against the house kernel and cuBLASLt (GPU, one call).

    python problems/fp8_gemm/lab/bench_ws.py [--out FILE.json] [--shapes visible|all] [--variants A,B,...]
                                             [--budget-s 2.0]

Defaults: --out '' (no JSON), --shapes visible, --device cuda, --variants every name in house_warp_specialized.VARIANTS,
--budget-s 2.0 (per timed line). Per shape: torch._scaled_mm (cuBLASLt), the house (solutions/house.py, prepare
and run as the scorer calls them), the candidate's run() (its rule: decode and small M as the house, M > 256 from
LARGE_VARIANT) and, on shapes with M > 256, every variant through house_warp_specialized.fp8_gemm. Each line is
first checked against the fp64 reference with the problem's tolerance (scoring.checking.compare); a line that
fails is reported and not timed. Timing is scoring.bench.median_ms (the scorer's timer: L2 flush, launch gate).
For each variant the compiled kernel's facts come beside its time: warp-specialised or not (a ttg.warp_specialize
op in its TTGIR), warps launched, registers per thread at launch, spilled registers, shared memory per CTA.
The table ends with each line's geomean fraction over the shapes it ran on.
"""

import argparse
import json
import math
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.bench import median_ms  # noqa: E402
from scoring.checking import compare  # noqa: E402
from scoring.hardware import detect  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402
from scoring.roofline import roofline_point  # noqa: E402

PROBLEM = REPO / "problems" / "fp8_gemm"


def _kernel_facts(compiled) -> dict:
    if compiled is None:
        return {}
    return {"warp_specialized": "ttg.warp_specialize" in compiled.asm.get("ttgir", ""),
            "launch_warps": compiled.metadata.num_warps, "registers": getattr(compiled, "n_regs", None),
            "spilled_registers": getattr(compiled, "n_spills", None), "shared_bytes": compiled.metadata.shared}


def bench_shape(shape, problem, house, candidate, variants, budget_s, peaks, device, rule_lines=True) -> list[dict]:
    params = dict(shape.params)
    gen = torch.Generator(device=device).manual_seed(1)
    weights = problem.module.make_weights(params, gen, device)
    inputs = problem.module.make_inputs(params, weights, gen, device)
    a, a_scale, b, b_scale = inputs["a"], inputs["a_scale"], weights["b"], weights["b_scale"]
    ref = problem.module.reference(weights, inputs)
    flops, nbytes = problem.flops(params), problem.bytes_moved(params)
    house_state = house.prepare(b, b_scale)
    candidate_state = candidate.prepare(b, b_scale)
    rows = []

    def record(line, fn, facts=None):
        row = {"shape": shape.name, "line": line, **(facts or {})}
        try:
            stats = compare(fn(), ref, problem.spec.tolerance)
            row["normwise_err"] = stats.normwise_err
            if not stats.passed:
                row["error"] = f"incorrect: {stats.detail}"
            else:
                ms = median_ms(fn, device=device, budget_s=budget_s)
                point = roofline_point(flops, nbytes, ms, *peaks)
                row.update(ms=ms, tflops=point.achieved_tflops, fraction=point.fraction)
        except Exception as exc:  # a variant that does not compile or launch is reported, not fatal
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
        rows.append(row)
        print(_format_row(row), flush=True)

    if rule_lines:
        record("cublaslt", lambda: torch._scaled_mm(a, b.T, scale_a=a_scale, scale_b=b_scale, out_dtype=torch.bfloat16))
        record("house", lambda: house.run(house_state, a, a_scale))
        record("candidate-rule", lambda: candidate.run(candidate_state, a, a_scale))
    if params["M"] > 256 or device.type == "cpu":  # the CPU smoke run takes every variant on every shape
        for name in variants:
            config = candidate.VARIANTS[name]
            b_desc = candidate_state["b_descriptors"][(config["BLOCK_N"], config["BLOCK_K"])]
            facts = {}
            try:
                facts = _kernel_facts(candidate.fp8_gemm(a, b, a_scale, b_scale, config=config, b_desc=b_desc)[1])
            except Exception:  # record() reports the same failure with its message
                pass
            record(name, lambda config=config, b_desc=b_desc: candidate.fp8_gemm(a, b, a_scale, b_scale, config=config,
                                                                                b_desc=b_desc)[0], facts)
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return rows


def _format_row(r: dict) -> str:
    head = f"{r['shape']:<18} {r['line']:<32}"
    if "error" in r:
        return f"{head} ERROR {r['error'][:90]}"
    ws = {True: "ws", False: "--"}.get(r.get("warp_specialized"), "  ")
    facts = (f"{ws} w{r.get('launch_warps', '')} r{r.get('registers', '')} s{r.get('spilled_registers', '')} "
             f"smem{r.get('shared_bytes', '')}") if "launch_warps" in r else ""
    return f"{head} {r['ms']:9.4f} ms {r['tflops']:7.1f} TFLOPS {r['fraction']:6.3f}  {facts}"


def summary(rows: list[dict]) -> list[str]:
    """Per line: geomean fraction over the shapes it ran and passed on, and its ratio to the house's there."""
    house = {r["shape"]: r["fraction"] for r in rows if r["line"] == "house" and "fraction" in r}
    lines = []
    for line in dict.fromkeys(r["line"] for r in rows):
        got = [r for r in rows if r["line"] == line and "fraction" in r]
        if not got:
            lines.append(f"{line:<32} no passing shape")
            continue
        geomean = math.exp(sum(math.log(r["fraction"]) for r in got) / len(got))
        same = [r for r in got if r["shape"] in house]
        vs_house = math.exp(sum(math.log(r["fraction"] / house[r["shape"]]) for r in same) / len(same)) if same else 0
        lines.append(f"{line:<32} geomean {geomean:.3f} over {len(got)} shapes; x{vs_house:.3f} the house there")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="", help="JSON file for every row (default: none)")
    parser.add_argument("--shapes", default="visible", choices=["visible", "all"], help="default: visible")
    parser.add_argument("--variants", default="", help="comma-separated VARIANTS names (default: all)")
    parser.add_argument("--no-rule", action="store_true",
                        help="only the variants: no cuBLASLt, house or candidate-rule rows (one variant per process, "
                        "under `timeout`, finds which one hangs: the first GPU run stalled after the house's row)")
    parser.add_argument("--budget-s", type=float, default=2.0, help="timing budget per line (default: 2.0)")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                        help="default: cuda; cpu (with TRITON_INTERPRET=1) runs the CPU profile's shapes, a smoke test")
    args = parser.parse_args()
    problem = load_problem(PROBLEM)
    house = import_file(PROBLEM / "solutions" / "house.py", "fp8_house")
    candidate = import_file(PROBLEM / "lab" / "house_warp_specialized.py", "fp8_house_ws")
    variants = [v for v in args.variants.split(",") if v] or list(candidate.VARIANTS)
    unknown = [v for v in variants if v not in candidate.VARIANTS]
    if unknown:
        raise SystemExit(f"bench_ws: no variant {unknown} in house_warp_specialized.VARIANTS ({list(candidate.VARIANTS)})")
    device = torch.device(args.device)
    hw = detect(args.device, "fp8", *((1.0, 1.0) if args.device == "cpu" else (None, None)))
    peaks = (hw.peak.tflops["fp8"], hw.peak.bandwidth_gbps)
    deck = problem.spec.shapes_for("cpu" if args.device == "cpu" else "gpu")
    shapes = deck.visible + (deck.held_out if args.shapes == "all" else ())
    rows = []
    for shape in shapes:
        rows += bench_shape(shape, problem, house, candidate, variants, args.budget_s, peaks, device,
                            rule_lines=not args.no_rule)
        if args.out:  # after every shape, so that a run cut short (a hung kernel, a timeout) keeps what it measured
            Path(args.out).write_text(json.dumps({"hardware": hw.as_dict(), "torch": torch.__version__,
                                                  "triton": __import__("triton").__version__,
                                                  "large_variant": candidate.LARGE_VARIANT, "rows": rows}, indent=1))
    print("\n".join(["", "geomean fraction per line (scoring.bench timer; not a scoring run):", *summary(rows)]))
    if args.out:
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
