"""Measure the house paged-attention kernel's configurations and the library candidates on the GPU.

    python problems/paged_attention/lab/bench_gpu.py --out FILE.json

For every visible and held-out shape: each house config's median time (scoring.bench.time_calls: the
scorer's timer), fraction of the memory roofline and error against the fp64 reference; the
library candidates (SDPA over gathered pages with enable_gqa or repeated KV heads, under each SDPA
backend) and the eager line beside it. A tuning aid, not a score: the score is scoring.run's.
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

HERE = REPO / "problems" / "paged_attention"

# Per config: a sweep ranks configs with the scorer's timer (scoring.bench); the scoring run is the measurement.
BUDGET_S = 2.0
CONFIGS = [
    dict(CHUNK=512, BLOCK_T=64, num_warps=4, num_stages=3),
    dict(CHUNK=512, BLOCK_T=64, num_warps=4, num_stages=2),
    dict(CHUNK=512, BLOCK_T=64, num_warps=4, num_stages=4),
    dict(CHUNK=256, BLOCK_T=64, num_warps=4, num_stages=3),
    dict(CHUNK=1024, BLOCK_T=64, num_warps=4, num_stages=3),
    dict(CHUNK=2048, BLOCK_T=64, num_warps=4, num_stages=3),
    dict(CHUNK=512, BLOCK_T=32, num_warps=4, num_stages=4),
    dict(CHUNK=512, BLOCK_T=128, num_warps=4, num_stages=2),
    dict(CHUNK=512, BLOCK_T=128, num_warps=8, num_stages=3),
    dict(CHUNK=512, BLOCK_T=64, num_warps=8, num_stages=3),
    dict(CHUNK=1024, BLOCK_T=128, num_warps=8, num_stages=2),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true", help="house default and library only")
    args = parser.parse_args()
    problem = load_problem(HERE)
    sys.path.insert(0, str(HERE / "solutions" / "baselines"))
    house = import_file(HERE / "solutions" / "house.py", "pa_house")
    library = import_file(HERE / "lab" / "sdpa_gathered_line.py", "pa_sdpa_gathered_line")  # the pre-issue-37 line
    eager = import_file(HERE / "solutions" / "baselines" / "eager.py", "pa_eager")
    hw = detect("cuda", "bf16")
    peak_tflops, peak_gbps = hw.peak.tflops["bf16"], hw.peak.bandwidth_gbps
    device = torch.device("cuda")
    rows = []
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for shape in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out:
        p = dict(shape.params)
        gen = torch.Generator(device=device).manual_seed(1)
        w = problem.module.make_weights(p, gen, device)
        x = problem.module.make_inputs(p, w, gen, device)
        ref = problem.module.reference(w, x)
        flops, nbytes = problem.flops(p), problem.bytes_moved(p)
        args_ = (x["q"], w["k_cache"], w["v_cache"], x["block_table"], x["seq_lens"])

        def record(name, fn):
            try:
                out = fn()
                torch.cuda.synchronize()
                err = float(((out.double() - ref).norm() / ref.norm()).item())
                max_abs = float((out.double() - ref).abs().max().item())
                ms = median_ms(fn, device=device, budget_s=BUDGET_S)
            except Exception as exc:
                rows.append({"shape": shape.name, "variant": name, "error": f"{type(exc).__name__}: {exc}"[:300]})
                print(rows[-1], flush=True)
                return
            pt = roofline_point(flops, nbytes, ms, peak_tflops, peak_gbps)
            rows.append({"shape": shape.name, "variant": name, "ms": ms, "gbps": pt.achieved_gbps,
                         "fraction": pt.fraction, "normwise_err": err, "max_abs_err": max_abs})
            print(f"{shape.name:24s} {name:44s} {ms*1e3:9.1f} us  frac {pt.fraction:.3f}  err {err:.2e}", flush=True)

        record("house-default", lambda: house.paged_decode(*args_))
        if not args.quick:
            for cfg in CONFIGS:
                name = "chunk{CHUNK} t{BLOCK_T} w{num_warps} s{num_stages}".format(**cfg)
                record(name, lambda cfg=cfg: house.paged_decode(*args_, config=cfg))
        for expand in (False, True):
            for backend in ("default", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"):
                def lib(expand=expand, backend=backend):
                    if backend == "default":
                        return library.attention(*args_, expand_gqa=expand)
                    with sdpa_kernel(getattr(SDPBackend, backend)):
                        return library.attention(*args_, expand_gqa=expand)
                if backend == "MATH" and p["B"] * p["L"] > 200000:
                    continue
                record(f"sdpa {'expand' if expand else 'enable_gqa'} {backend}", lib)
        if p["B"] * p["L"] * p["G"] * p["Hkv"] <= 2**24:
            record("eager", lambda: eager.attention(*args_))
        w = x = ref = None  # free this shape (rebinding, not del: the closures above read these names)
        torch.cuda.empty_cache()
    record = {"hardware": hw.as_dict(), "torch": torch.__version__, "rows": rows}
    Path(args.out).write_text(json.dumps(record, indent=1))
    print("\nbest per shape:")
    for shape in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out:
        ok = [r for r in rows if r["shape"] == shape.name and "fraction" in r]
        house_rows = [r for r in ok if not r["variant"].startswith(("sdpa", "eager"))]
        lib_rows = [r for r in ok if r["variant"].startswith("sdpa")]
        best = max(house_rows, key=lambda r: r["fraction"], default={})
        best_lib = max(lib_rows, key=lambda r: r["fraction"], default={})
        default = next((r for r in ok if r["variant"] == "house-default"), {})
        print(f"{shape.name:24s} default {default.get('fraction', 0):.3f} best {best.get('fraction', 0):.3f} "
              f"({best.get('variant')}) lib {best_lib.get('fraction', 0):.3f} ({best_lib.get('variant')})")


if __name__ == "__main__":
    main()
