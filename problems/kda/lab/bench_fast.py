"""Issue 37: time house_fast.py's (or the house's own) variants against the house kernel and fla's chunk_kda (GPU, one call).

    PYTHONPATH=<fla-core> python problems/kda/lab/bench_fast.py [--out FILE.json] [--shapes visible|all]
        [--module fast|split] [--variants A,B,...] [--budget-s 1.5] [--deadline-s 400] [--device cuda|cpu]

--module picks the candidate file: fast (default) is lab/house_fast.py (round 1), split is solutions/house.py (round 2, the house since 2026-11-28)
(round 2); both expose VARIANTS, DEFAULT_VARIANT and kda_forward(..., config=).

Per shape, in this order: fla's chunk_kda (when `import fla` works; otherwise the row says so and ratios are
to nothing), the house (solutions/house.py, run() as the scorer calls it), then every variant of
the module's VARIANTS through its kda_forward. Each line is first checked against the problem's fp64
reference with the problem's tolerance (scoring.checking.compare); a line that fails (or raises) is reported
and not timed. Timing is scoring.bench.median_ms (the scorer's timer: L2 flush, launch gate), --budget-s per
line. fla autotunes on every new shape (40-60 s): with the default four visible shapes the whole call stays
under ~420 s; past --deadline-s (wall time since start) the remaining lines are skipped, and the JSON is
rewritten after every line so a cut run keeps what it measured. The table at the end gives ms per line and
shape, the ratio of fla's time to the line's (throughput relative to fla: > 1 is faster than fla) and each
line's geomean of that ratio. --device cpu (with TRITON_INTERPRET=1) runs the CPU profile's shapes, a smoke test.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.bench import median_ms  # noqa: E402
from scoring.checking import compare  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402

PROBLEM = REPO / "problems" / "kda"
START_S = time.monotonic()
MODULES = {
    "fast": "lab/house_fast.py",
    "split": "solutions/house.py",
}  # --module -> file in problems/kda/ (split: the house since 2026-11-28)


def fla_chunk_kda():
    """fla's chunk_kda, or (None, why) when fla-core is not importable here."""
    try:
        import fla  # noqa: F401
        from fla.ops.kda import chunk_kda
    except Exception as exc:  # ImportError, or a broken install
        return None, f"{type(exc).__name__}: {exc}"[:200]
    return chunk_kda, getattr(fla, "__version__", "?")


def bench_shape(shape, problem, lines, budget_s, deadline_s, device, rows, write):
    params = dict(shape.params)
    gen = torch.Generator(device=device).manual_seed(1)
    inputs = problem.module.make_inputs(params, {}, gen, device)
    ref = problem.module.reference({}, inputs)
    for line, fn in lines:
        row = {"shape": shape.name, "line": line}
        if fn is None:
            row["error"] = "not available (fla not importable)"
        elif time.monotonic() - START_S > deadline_s:
            row["error"] = f"skipped: past --deadline-s {deadline_s:.0f} s"
        else:
            try:
                t0 = time.monotonic()
                out = fn(inputs)
                stats = compare(out, ref, problem.spec.tolerance)
                row.update(
                    normwise_err=stats.normwise_err, max_abs_err=stats.max_abs_err, first_call_s=time.monotonic() - t0
                )
                if not stats.passed:
                    row["error"] = f"incorrect: {stats.detail}"
                else:
                    row["ms"] = median_ms(lambda fn=fn: fn(inputs), device=device, budget_s=budget_s)
            except Exception as exc:  # a line that does not compile or launch is reported, not fatal
                row["error"] = f"{type(exc).__name__}: {exc}"[:300]
            out = None
        rows.append(row)
        print(_format_row(row), flush=True)
        write()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _format_row(r: dict) -> str:
    head = f"{r['shape']:<16} {r['line']:<28}"
    if "ms" not in r:
        return f"{head} ERROR {r.get('error', '')[:110]}"
    return (
        f"{head} {r['ms']:9.3f} ms  err {r['normwise_err']:.2e} max {r['max_abs_err']:.3f}  "
        f"(first call {r['first_call_s']:.1f} s)"
    )


def summary(rows: list[dict]) -> list[str]:
    """Per shape: ms per line and fla_ms / line_ms; per line: geomean of that ratio over the shapes with both."""
    shapes = list(dict.fromkeys(r["shape"] for r in rows))
    lines = list(dict.fromkeys(r["line"] for r in rows))
    ms = {(r["shape"], r["line"]): r["ms"] for r in rows if "ms" in r}
    out = [f"{'line':<28} " + " ".join(f"{s[:16]:>16}" for s in shapes) + f" {'geomean vs fla':>15} {'vs house':>9}"]
    for line in lines:
        cells, logs, house_logs = [], [], []
        for s in shapes:
            t, fla = ms.get((s, line)), ms.get((s, "fla"))
            if t is None:
                cells.append(f"{'-':>16}")
                continue
            ratio = fla / t if fla else None
            if ms.get((s, "house")):
                house_logs.append(math.log(ms[(s, "house")] / t))
            if ratio:
                logs.append(math.log(ratio))
            cells.append(f"{t:8.3f} {'x%.3f' % ratio if ratio else '':>7}")
        geo = f"x{math.exp(sum(logs) / len(logs)):.3f}" if logs else "-"
        vs_house = f"x{math.exp(sum(house_logs) / len(house_logs)):.3f}" if house_logs else "-"
        out.append(f"{line:<28} " + " ".join(cells) + f" {geo:>15} {vs_house:>9}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="", help="JSON file for every row (default: none)")
    parser.add_argument("--shapes", default="visible", choices=["visible", "all"], help="default: visible")
    parser.add_argument(
        "--module", default="fast", choices=list(MODULES), help="candidate file: fast (default) or split"
    )
    parser.add_argument("--variants", default="", help="comma-separated VARIANTS names of --module (default: all)")
    parser.add_argument("--budget-s", type=float, default=1.5, help="timing budget per line (default: 1.5)")
    parser.add_argument(
        "--deadline-s",
        type=float,
        default=400.0,
        help="skip lines that would start later than this many seconds after launch (default: 400)",
    )
    parser.add_argument(
        "--device",
        default="cuda",
        choices=["cuda", "cpu"],
        help="default: cuda; cpu (with TRITON_INTERPRET=1) runs the CPU profile's shapes, a smoke test",
    )
    parser.add_argument("--no-fla", action="store_true", help="leave fla out even when importable")
    args = parser.parse_args()
    problem = load_problem(PROBLEM)
    house = import_file(PROBLEM / "solutions" / "house.py", "kda_house")
    fast = import_file(PROBLEM / MODULES[args.module], f"kda_house_{args.module}")
    variants = [v for v in args.variants.split(",") if v] or list(fast.VARIANTS)
    unknown = [v for v in variants if v not in fast.VARIANTS]
    if unknown:
        raise SystemExit(f"bench_fast: no variant {unknown} in {MODULES[args.module]} VARIANTS ({list(fast.VARIANTS)})")
    device = torch.device(args.device)
    chunk_kda, fla_version = (None, "left out (--no-fla)") if args.no_fla else fla_chunk_kda()
    print(f"fla: {fla_version if chunk_kda else 'not available: ' + fla_version}", flush=True)

    def fla_line(x):
        return chunk_kda(x["q"], x["k"], x["v"], x["g"], x["beta"], scale=x["scale"])[0]

    lines = [("fla", fla_line if chunk_kda else None), ("house", lambda x: house.run(None, **x))]
    lines += [(name, lambda x, cfg=fast.VARIANTS[name]: fast.kda_forward(**x, config=cfg)) for name in variants]
    deck = problem.spec.shapes_for("cpu" if args.device == "cpu" else "gpu")
    shapes = list(deck.visible) + (list(deck.held_out) if args.shapes == "all" else [])
    rows: list[dict] = []
    meta = {
        "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
        "torch": torch.__version__,
        "triton": __import__("triton").__version__,
        "fla": fla_version,
        "module": MODULES[args.module],
        "default_variant": fast.DEFAULT_VARIANT,
        "variants": {name: fast.VARIANTS[name] for name in variants},
        "budget_s": args.budget_s,
    }

    def write():  # after every line, so that a run cut short keeps what it measured
        if args.out:
            Path(args.out).write_text(
                json.dumps({**meta, "wall_s": time.monotonic() - START_S, "rows": rows}, indent=1)
            )

    for shape in shapes:
        bench_shape(shape, problem, lines, args.budget_s, args.deadline_s, device, rows, write)
    print(
        "\n".join(
            [
                "",
                f"ms per line (x: fla's ms / the line's, > 1 is faster than fla); "
                f"{time.monotonic() - START_S:.0f} s in all:",
                *summary(rows),
            ]
        )
    )
    if args.out:
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
