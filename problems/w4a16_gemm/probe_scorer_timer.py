"""Candidates per shape timed with the scorer's own timer (flush, 200 us pad, events; median of 40), and the
host time of one call (median of 15, GPU kept busy): the tma kernels through launch plans."""
import statistics, sys, time, json, os
from pathlib import Path
sys.path.insert(0, "problems/w4a16_gemm"); sys.path.insert(0, ".")
import torch
import bench_cuda as b
from scoring.problem import load_problem
from scoring.timing import GpuTimer
from scoring.checking import compare
b.SM_COUNT = torch.cuda.get_device_properties(0).multi_processor_count
dev = torch.device("cuda")
problem = load_problem(Path("problems/w4a16_gemm"))
hw_peak_gbps, hw_peak_tflops = 3350.0, 989.4  # scoring/peaks.toml h100_sxm
timer = GpuTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size)
T, MMA = b.tma, b.mma
decode = [MMA(128, 8, 4, stages=3, mb=6, minb=16), T(2, 8, stages=6, mb=3, minb=8), T(1, 8, stages=6, mb=6, minb=12),
          T(2, 8, mb=3, minb=16)]
big = [T(2, 128, stages=5, ov=True), T(2, 128, stages=4, ov=True), T(2, 128, stages=5)]
plan = {
    "decode_m1_70b_up": decode, "decode_m7_70b_gate_up": decode,
    "decode_m16_70b_down": [T(2, 16, mb=3), T(1, 16, stages=6, mb=4), T(2, 16, stages=6, mb=2)],
    "batch_m32_qwen72b_down": [T(2, 32, mb=2), T(2, 32, stages=6, mb=2), T(2, 32, mb=2, minb=4), T(1, 32, stages=6, mb=4)],
    "batch_m64_70b_qkv": [T(2, 64, mb=2), T(2, 64, stages=3, mb=2), T(4, 64, stages=4), T(2, 64, mb=2, minb=4)],
    "prefill_m256_70b_o": big, "prefill_m128_8b_up": big,
}
shapes = {s.name: dict(s.params) for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
rows = []
for name, cands in plan.items():
    p = shapes[name]
    gen = torch.Generator(device=dev).manual_seed(1)
    w = problem.module.make_weights(p, gen, dev)
    x = problem.module.make_inputs(p, w, gen, dev)["x"]
    ref = problem.module.reference(w, {"x": x})
    house_state = b.house.prepare(**w)
    st = b.prepare(**w)
    fns = {"house": lambda: b.house.run(house_state, x)}
    for v, c in cands:
        fns[b.label(v, c)] = (lambda c=c: b.run_variant(st, x, "cuda", **c))
    roof_us = max(problem.flops(p) / hw_peak_tflops / 1e6, problem.bytes_moved(p) / hw_peak_gbps / 1e3)
    for label, f in fns.items():
        ok = compare(f(), ref, problem.spec.tolerance).passed
        host = []
        for _ in range(15):
            torch.cuda.synchronize(); torch.cuda._sleep(2_000_000)
            t0 = time.perf_counter(); f(); host.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
        scorer = []
        for _ in range(40):
            timer.before_call(); _, ct = timer.time_call(f); scorer.append(ct.device_ms * 1e3)
        med = statistics.median(scorer)
        row = dict(shape=name, config=label, passed=ok, host_us=statistics.median(host), scorer_us=med,
                   scorer_min_us=min(scorer), fraction=roof_us / med)
        rows.append(row)
        print(f"{name:22} {label:44} {'ok' if ok else 'FAIL'} host {row['host_us']:6.1f}  {med:6.1f} us  frac {row['fraction']:.3f}", flush=True)
json.dump({"peaks": {"gbps": hw_peak_gbps, "tflops": hw_peak_tflops}, "torch": torch.__version__, "rows": rows},
          open(os.environ["OUT"] + "/tma_probe2_h100.json", "w"), indent=1)
