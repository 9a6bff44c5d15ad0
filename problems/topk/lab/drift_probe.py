"""Why two scoring runs of the same top-k kernel differ by ~1% on every shape (issue 17's repeat target).

    python problems/topk/lab/drift_probe.py placement [out=FILE.json] [placements=8] [calls=200]
    python problems/topk/lab/drift_probe.py heat [seconds=30]
    python problems/topk/lab/drift_probe.py timeline [out=FILE.json] [heat_s=60] [after_s=150] [every_s=5]
    python problems/topk/lab/drift_probe.py flush [out=FILE.json] [timers=8] [calls=200]
    python problems/topk/lab/drift_probe.py footprint [out=FILE.json] [pad_gib=32] [calls=200]
    python problems/topk/lab/drift_probe.py pools [out=FILE.json] [pools=8] [calls=200]
    python problems/topk/lab/drift_probe.py modules [out=FILE.json] [modules=8] [calls=200] [flush=true]

Two suspects, each run's medians being stable to 0.3% while runs differ by 1%:
- the SM clock, which moves in 15 MHz steps (0.76% of 1980 MHz) with temperature and power. Scoring runs
  now record it per shape (`gpu_state`, scoring/gpu_state.py), so runs before and after `heat` (bf16
  matmuls at full power for some seconds) show whether a run's medians follow its clock.
- where the inputs sit in memory: a worker makes fresh input values per call, but the caching allocator
  hands back the same few blocks, so a run may inherit one placement for all its calls. `placement` makes
  the same input at `placements` different addresses (a pad of random size allocated first, kept alive),
  times each (the scorer's timer, a fixed number of calls), then times every placement again in the same
  order: if placement matters, a placement's two medians agree with each other and differ from the others'.
  The GPU's clocks are read beside every pass (scoring/gpu_state.py).
- neither: `timeline` measures, a few times before and every `every_s` seconds for `after_s` after a heat,
  the SM's real clock (cycles of torch.cuda._sleep per event-timed microsecond), DRAM copy bandwidth (a
  1 GiB copy), two top-k shapes on fixed inputs (the scorer's timer, 100 calls) and NVML's readings, HBM's
  temperature among them: which of them moves with the top-k times.
- a process's own placement: scoring runs (one process each) differ by a run-wide offset (SD ~0.35% over
  20 runs) that persists across consecutive runs and jumps after another process used the GPU, as if
  each process inherited physical pages from the driver's free list. `flush` gives each of `timers` scorer
  timers its own L2 flush buffer at a different place (a pad of random size before each) and times the
  same fixed inputs with every timer, twice in the same order.
  `footprint` times fixed inputs in one process with little allocated, then with `pad_gib` GiB allocated
  before fresh copies of the inputs, then with it freed again (copies made afresh each time).
  `pools` puts everything a call allocates (the input's copy, the kernel's own buffers and its output) in
  one of `pools` memory pools, each its own set of segments, and times every pool twice: `placement` moved
  only the input, while the kernel's buffers came back from the same cached blocks every call.
  None of those moved a process's times, yet the same probe in different modes (different allocation
  histories) settled at medians up to 1.3% apart, each mode reproducing its own. `modules` imports the house
  solution `modules` times (each import compiles nothing new but loads its own copy of the kernels' code
  into device memory, with a pad of random size allocated between loads) and times every copy twice;
  with flush=false the timer skips its L2 flush (the code then stays in L2 between calls).
A lab probe: what it prints is evidence for problems/topk/NOTES.md, not a score.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.bench import time_calls  # noqa: E402
from scoring.gpu_state import GpuStateSampler, nvml_reader  # noqa: E402
from scoring.hardware import detect  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402
from scoring.timing import GpuTimer  # noqa: E402

SHAPES = ("sampling_vocab_128k", "argmax_64k", "neg_inf_1m")  # 0.25, 0.10 and 0.89 ms with the house kernel
PAD_STEP_BYTES = 2 << 20  # the driver maps memory in 2 MiB pages


def arguments(argv: list[str]) -> dict[str, str]:
    pairs = dict(arg.split("=", 1) for arg in argv if "=" in arg)
    unknown = [arg for arg in argv if "=" not in arg]
    if unknown:
        raise SystemExit(f"drift_probe: arguments are key=value, got {unknown}")
    return pairs


def heat(seconds: float) -> dict:
    """bf16 matmuls back to back for `seconds`: raises the GPU's temperature and power draw."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    with GpuStateSampler.for_device("cuda:0") as sampler:
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            for _ in range(20):
                a @ b
            torch.cuda.synchronize()
        end = time.monotonic()
    return {"heat_s": seconds, "gpu_state": sampler.during(start, end)}


def placement(placements: int, calls: int) -> dict:
    problem = load_problem(REPO / "problems" / "topk")
    house = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", "house")
    hardware = detect("cuda", "fp32")
    device = torch.device("cuda")
    shapes = {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
    rng = random.Random(17)
    rows = []
    with GpuStateSampler.for_device("cuda:0") as sampler:
        for name in SHAPES:
            params = dict(shapes[name].params)
            gen = torch.Generator(device=device).manual_seed(7)
            inputs = problem.module.make_inputs(params, {}, gen, device)
            kept = []  # (pad, x) per placement, alive until the shape is done
            for _ in range(placements):
                pad = torch.empty(rng.randrange(0, 2048) * PAD_STEP_BYTES + rng.randrange(0, 64) * 512,
                                  dtype=torch.uint8, device=device)
                kept.append((pad, inputs["x"].clone()))
            for pass_index in range(2):
                for index, (_, x) in enumerate(kept):
                    start = time.monotonic()
                    stats = time_calls(lambda: house.run(None, x, inputs["k"]), device="cuda",
                                       min_calls=calls, max_calls=calls, target_rse=0.0, budget_s=120.0)
                    state = sampler.during(start, time.monotonic())
                    rows.append({"shape": name, "pass": pass_index, "placement": index,
                                 "x_address_mod_2mib": x.data_ptr() % PAD_STEP_BYTES, "median_ms": stats.median_ms,
                                 "rse": stats.rse, "sm_clock_mhz": state.get("sm_clock_mhz"),
                                 "temperature_c": state.get("temperature_c"),
                                 "clock_event_reasons": state.get("clock_event_reasons")})
            del kept
            torch.cuda.empty_cache()
    return {"hardware": hardware.as_dict(), "placements": placements, "calls": calls, "rows": rows,
            "summary": summarise(rows)}


def event_ms(fn, repeats: int) -> float:
    """Median of `repeats` event-timed calls of `fn` (no flush: the calibrations stream, they do not reuse)."""
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def timeline(heat_s: float, after_s: float, every_s: float) -> dict:
    problem = load_problem(REPO / "problems" / "topk")
    house = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", "house")
    hardware = detect("cuda", "fp32")
    device = torch.device("cuda")
    shapes = {s.name: s for s in problem.spec.gpu_shapes.visible}
    fixed = {}
    for name in ("sampling_vocab_128k", "ties_32k"):
        gen = torch.Generator(device=device).manual_seed(7)
        fixed[name] = problem.module.make_inputs(dict(shapes[name].params), {}, gen, device)
    src = torch.ones(1 << 28, dtype=torch.float32, device=device)  # 1 GiB
    dst = torch.empty_like(src)
    sleep_cycles = 2_000_000
    try:
        read = nvml_reader(0)
    except RuntimeError:
        read = None

    def measure(label: str, started: float) -> dict:
        row = {"label": label, "t_s": round(time.monotonic() - started, 2)}
        row["sm_clock_effective_mhz"] = sleep_cycles / event_ms(lambda: torch.cuda._sleep(sleep_cycles), 20) / 1e3
        row["copy_gbps"] = 2 * src.numel() * 4 / event_ms(lambda: dst.copy_(src), 20) / 1e6
        for name, inputs in fixed.items():
            row[f"{name}_ms"] = time_calls(lambda: house.run(None, inputs["x"], inputs["k"]), device="cuda",
                                           min_calls=100, max_calls=100, target_rse=0.0).median_ms
        if read:
            reading = read()
            row.update(nvml_sm_clock_mhz=reading.sm_clock_mhz, temperature_c=reading.temperature_c,
                       memory_temperature_c=reading.memory_temperature_c, power_w=reading.power_w)
        print(json.dumps(row), flush=True)
        return row

    started = time.monotonic()
    rows = [measure("before", started)]
    for _ in range(2):
        time.sleep(every_s)
        rows.append(measure("before", started))
    heated = heat(heat_s)
    heat_end = time.monotonic()
    while time.monotonic() - heat_end < after_s:
        rows.append(measure("after", started))
        time.sleep(every_s)
    return {"hardware": hardware.as_dict(), "heat": heated, "every_s": every_s, "rows": rows}


def flush_placement(timers: int, calls: int) -> dict:
    problem = load_problem(REPO / "problems" / "topk")
    house = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", "house")
    hardware = detect("cuda", "fp32")
    device = torch.device("cuda")
    rng = random.Random(23)
    kept = []
    for _ in range(timers):
        pad = torch.empty(rng.randrange(0, 2048) * PAD_STEP_BYTES, dtype=torch.uint8, device=device)
        kept.append((pad, GpuTimer(device, hardware.l2_bytes)))
    shapes = {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
    rows = []
    for name in SHAPES + ("ties_32k",):
        gen = torch.Generator(device=device).manual_seed(7)
        inputs = problem.module.make_inputs(dict(shapes[name].params), {}, gen, device)
        for pass_index in range(2):
            for index, (_, timer) in enumerate(kept):
                stats = time_calls(lambda: house.run(None, inputs["x"], inputs["k"]), timer=timer,
                                   min_calls=calls, max_calls=calls, target_rse=0.0, budget_s=120.0)
                rows.append({"shape": name, "pass": pass_index, "placement": index,
                             "flush_address_mod_2mib": timer._flush.data_ptr() % PAD_STEP_BYTES,
                             "median_ms": stats.median_ms, "rse": stats.rse})
    return {"hardware": hardware.as_dict(), "timers": timers, "calls": calls, "rows": rows,
            "summary": summarise(rows)}


def pools(pool_count: int, calls: int) -> dict:
    problem = load_problem(REPO / "problems" / "topk")
    house = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", "house")
    hardware = detect("cuda", "fp32")
    device = torch.device("cuda")
    shapes = {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
    rng = random.Random(29)
    rows = []
    for name in SHAPES + ("ties_32k",):
        gen = torch.Generator(device=device).manual_seed(7)
        inputs = problem.module.make_inputs(dict(shapes[name].params), {}, gen, device)
        placed = []
        for _ in range(pool_count):
            pool = torch.cuda.MemPool()
            with torch.cuda.use_mem_pool(pool):
                pad = torch.empty(rng.randrange(1, 64) * PAD_STEP_BYTES + rng.randrange(0, 4096) * 256,
                                  dtype=torch.uint8, device=device)
                placed.append((pool, pad, inputs["x"].clone()))
        for pass_index in range(2):
            for index, (pool, _, x) in enumerate(placed):
                with torch.cuda.use_mem_pool(pool):
                    stats = time_calls(lambda: house.run(None, x, inputs["k"]), device="cuda", min_calls=calls,
                                       max_calls=calls, target_rse=0.0, budget_s=120.0)
                rows.append({"shape": name, "pass": pass_index, "placement": index, "median_ms": stats.median_ms,
                             "rse": stats.rse})
        del placed
    return {"hardware": hardware.as_dict(), "pools": pool_count, "calls": calls, "rows": rows,
            "summary": summarise(rows)}


class UnflushedTimer(GpuTimer):
    """The scorer's timer without the L2 flush (the launch gate and events as before)."""

    def before_call(self) -> None:
        if self._gate:
            self._gate.hold()


def modules(module_count: int, calls: int, flush: bool = True) -> dict:
    problem = load_problem(REPO / "problems" / "topk")
    hardware = detect("cuda", "fp32")
    device = torch.device("cuda")
    shapes = {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
    rng = random.Random(31)
    fixed = {}
    for name in SHAPES + ("ties_32k",):
        gen = torch.Generator(device=device).manual_seed(7)
        fixed[name] = problem.module.make_inputs(dict(shapes[name].params), {}, gen, device)
    timer = None if flush else UnflushedTimer(device, hardware.l2_bytes)
    copies, pads = [], []
    for index in range(module_count):
        pads.append(torch.empty(rng.randrange(1, 256) * PAD_STEP_BYTES, dtype=torch.uint8, device=device))
        copy = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", f"house_copy_{index}")
        for inputs in fixed.values():  # first launch of each kernel loads this copy's code
            copy.run(None, inputs["x"], inputs["k"])
        torch.cuda.synchronize()
        copies.append(copy)
    rows = []
    for name, inputs in fixed.items():
        for pass_index in range(2):
            for index, copy in enumerate(copies):
                stats = time_calls(lambda: copy.run(None, inputs["x"], inputs["k"]), device="cuda", timer=timer,
                                   min_calls=calls, max_calls=calls, target_rse=0.0, budget_s=120.0)
                rows.append({"shape": name, "pass": pass_index, "placement": index, "median_ms": stats.median_ms,
                             "rse": stats.rse})
    return {"hardware": hardware.as_dict(), "modules": module_count, "calls": calls, "flush": flush, "rows": rows,
            "summary": summarise(rows)}


def footprint(pad_gib: float, calls: int) -> dict:
    problem = load_problem(REPO / "problems" / "topk")
    house = import_file(REPO / "problems" / "topk" / "solutions" / "house.py", "house")
    hardware = detect("cuda", "fp32")
    device = torch.device("cuda")
    shapes = {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
    inputs = {}
    for name in SHAPES:
        gen = torch.Generator(device=device).manual_seed(7)
        inputs[name] = problem.module.make_inputs(dict(shapes[name].params), {}, gen, device)
    rows = []
    pads: list[torch.Tensor] = []
    for phase in ("small", "padded", "freed", "small_again"):
        if phase == "padded":
            pads = [torch.empty(1 << 30, dtype=torch.uint8, device=device) for _ in range(int(pad_gib))]
        elif phase == "freed":
            pads.clear()
            torch.cuda.empty_cache()
        for name, given in inputs.items():
            x = given["x"].clone()
            stats = time_calls(lambda: house.run(None, x, given["k"]), device="cuda", min_calls=calls,
                               max_calls=calls, target_rse=0.0, budget_s=120.0)
            rows.append({"shape": name, "phase": phase, "median_ms": stats.median_ms, "rse": stats.rse,
                         "reserved_gib": torch.cuda.memory_reserved(device) / 2**30})
            del x
    for row in rows:
        print(f"{row['shape']:22s} {row['phase']:12s} {row['median_ms']:.4f} ms  reserved {row['reserved_gib']:.1f} GiB")
    return {"hardware": hardware.as_dict(), "pad_gib": pad_gib, "calls": calls, "rows": rows}


def summarise(rows: list[dict]) -> dict:
    """Per shape: the spread of the placements' medians (max/min - 1) and how far each placement's two
    passes are apart (the median of |pass 1 / pass 0 - 1|): placement matters when the first is well
    above the second."""
    out = {}
    for name in dict.fromkeys(row["shape"] for row in rows):
        by_pass = {p: {r["placement"]: r["median_ms"] for r in rows if r["shape"] == name and r["pass"] == p}
                   for p in (0, 1)}
        medians = [statistics.fmean((by_pass[0][i], by_pass[1][i])) for i in by_pass[0]]
        out[name] = {"placement_spread": max(medians) / min(medians) - 1,
                     "pass_disagreement_median": statistics.median(abs(by_pass[1][i] / by_pass[0][i] - 1)
                                                                   for i in by_pass[0])}
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("placement", "heat", "timeline", "flush", "footprint", "pools",
                                           "modules"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    args = arguments(argv[1:])
    if argv[0] == "heat":
        report = heat(float(args.get("seconds", 30)))
    elif argv[0] == "timeline":
        report = timeline(float(args.get("heat_s", 60)), float(args.get("after_s", 150)),
                          float(args.get("every_s", 5)))
    elif argv[0] in ("pools", "modules"):
        report = (pools(int(args.get("pools", 8)), int(args.get("calls", 200))) if argv[0] == "pools"
                  else modules(int(args.get("modules", 8)), int(args.get("calls", 200)),
                               args.get("flush", "true") == "true"))
        for name, row in report["summary"].items():
            print(f"{name:22s} pool spread {row['placement_spread'] * 100:5.2f}%   "
                  f"pass-to-pass median {row['pass_disagreement_median'] * 100:5.2f}%")
    elif argv[0] == "footprint":
        report = footprint(float(args.get("pad_gib", 32)), int(args.get("calls", 200)))
    else:
        report = (placement(int(args.get("placements", 8)), int(args.get("calls", 200))) if argv[0] == "placement"
                  else flush_placement(int(args.get("timers", 8)), int(args.get("calls", 200))))
        for name, row in report["summary"].items():
            print(f"{name:22s} placement spread {row['placement_spread'] * 100:5.2f}%   "
                  f"pass-to-pass median {row['pass_disagreement_median'] * 100:5.2f}%")
    text = json.dumps(report, indent=1)
    if args.get("out"):
        Path(args["out"]).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
