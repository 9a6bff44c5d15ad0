"""Why two scoring runs of the same top-k kernel differ by ~1% on every shape (issue 17's repeat target).

    python problems/topk/lab/drift_probe.py placement [out=FILE.json] [placements=8] [calls=200]
    python problems/topk/lab/drift_probe.py heat [out=FILE.json] [seconds=30]
    python problems/topk/lab/drift_probe.py timeline [out=FILE.json] [heat_s=60] [after_s=150] [every_s=5]
    python problems/topk/lab/drift_probe.py flush [out=FILE.json] [timers=8] [calls=200]
    python problems/topk/lab/drift_probe.py footprint [out=FILE.json] [pad_gib=32] [calls=200]
    python problems/topk/lab/drift_probe.py pools [out=FILE.json] [pools=8] [calls=200]
    python problems/topk/lab/drift_probe.py modules [out=FILE.json] [modules=8] [calls=200] [flush=true]

Each run's medians are stable to 0.3% while runs differ by up to 1%. The modes, in the order they were tried
(what each found: measurements/drift/README.md and docs/results.md, "Repeat agreement"):
- `heat`: bf16 matmuls back to back for `seconds`, to see whether the runs after it follow the SM clock,
  which moves in 15 MHz steps (0.76% of 1980 MHz) with temperature and power (scoring runs record it per
  shape: `gpu_state`, scoring/gpu_state.py; drift_device.sh runs scoring runs around a heat).
- `placement`: the same input copied to `placements` places (a pad of random size allocated before each,
  kept alive), each timed with a fixed number of calls (the scorer's timer), then every place again in
  the same order: if placement matters, a place's two medians agree and differ from the others'.
- `timeline`: a few times before and every `every_s` seconds for `after_s` after a heat, the SM's real
  clock (cycles of torch.cuda._sleep per event-timed microsecond), DRAM copy bandwidth (a 1 GiB copy), two
  top-k shapes on fixed inputs and NVML's readings, HBM's temperature among them.
- `flush`: `timers` scorer timers, each with its own L2 flush buffer at a different place, the same inputs
  timed with each.
- `footprint`: fixed inputs timed with little allocated, with `pad_gib` GiB allocated before fresh copies of
  them, and with it freed again.
- `pools`: everything a call allocates (the input's copy, the kernel's buffers and its output) in one of
  `pools` memory pools, each its own segments (`placement` moved only the input; the kernel's buffers came
  back from the same cached blocks every call).
- `modules`: the house solution imported `modules` times, each copy's kernels loaded at their own device
  addresses (a pad of random size between loads), every copy timed; `flush=false` skips the timer's L2
  flush, so the code stays in L2 between calls.
A lab probe: what it prints is evidence for docs/results.md, not a score.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from scoring.bench import time_calls  # noqa: E402
from scoring.gpu_state import GpuStateSampler, nvml_reader  # noqa: E402
from scoring.hardware import Hardware, detect  # noqa: E402
from scoring.problem import Problem, import_file, load_problem  # noqa: E402
from scoring.timing import GpuTimer, TimingStats  # noqa: E402

SHAPES = ("sampling_vocab_128k", "argmax_64k", "neg_inf_1m")  # 0.25, 0.10 and 0.89 ms with the house kernel
PAD_STEP_BYTES = 2 << 20  # the driver maps memory in 2 MiB pages
HOUSE = REPO / "problems" / "topk" / "solutions" / "house.py"


@dataclass
class Topk:
    """What every mode starts from: the problem, the house kernel, the GPU and the shapes by name."""

    problem: Problem
    house: ModuleType
    hardware: Hardware
    device: torch.device
    shapes: dict

    @classmethod
    def load(cls) -> "Topk":
        problem = load_problem(REPO / "problems" / "topk")
        shapes = {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
        return cls(problem, import_file(HOUSE, "house"), detect("cuda", "fp32"), torch.device("cuda"), shapes)

    def fixed_inputs(self, name: str) -> dict:
        """The shape's inputs from one fixed seed: every mode times the same values."""
        gen = torch.Generator(device=self.device).manual_seed(7)
        return self.problem.module.make_inputs(dict(self.shapes[name].params), {}, gen, self.device)

    def report(self, **fields) -> dict:
        return {"hardware": self.hardware.as_dict(), **fields}


def timed(run, calls: int, timer: GpuTimer | None = None) -> TimingStats:
    """Exactly `calls` calls of `run` through the scorer's timer (or `timer`), no early stop."""
    return time_calls(run, device="cuda", timer=timer, min_calls=calls, max_calls=calls, target_rse=0.0,
                      budget_s=120.0)


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
    topk = Topk.load()
    rng = random.Random(17)
    rows = []
    with GpuStateSampler.for_device("cuda:0") as sampler:
        for name in SHAPES:
            inputs = topk.fixed_inputs(name)
            kept = []  # (pad, x) per placement, alive until the shape is done
            for _ in range(placements):
                pad = torch.empty(rng.randrange(0, 2048) * PAD_STEP_BYTES + rng.randrange(0, 64) * 512,
                                  dtype=torch.uint8, device=topk.device)
                kept.append((pad, inputs["x"].clone()))
            for pass_index in range(2):
                for index, (_, x) in enumerate(kept):
                    start = time.monotonic()
                    stats = timed(lambda: topk.house.run(None, x, inputs["k"]), calls)
                    state = sampler.during(start, time.monotonic())
                    rows.append({"shape": name, "pass": pass_index, "placement": index,
                                 "x_address_mod_2mib": x.data_ptr() % PAD_STEP_BYTES, "median_ms": stats.median_ms,
                                 "rse": stats.rse, "sm_clock_mhz": state.get("sm_clock_mhz"),
                                 "temperature_c": state.get("temperature_c"),
                                 "clock_event_reasons": state.get("clock_event_reasons")})
            del kept
            torch.cuda.empty_cache()
    return topk.report(placements=placements, calls=calls, rows=rows, summary=summarise(rows))


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
    topk = Topk.load()
    fixed = {name: topk.fixed_inputs(name) for name in ("sampling_vocab_128k", "ties_32k")}
    src = torch.ones(1 << 28, dtype=torch.float32, device=topk.device)  # 1 GiB
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
            row[f"{name}_ms"] = timed(lambda: topk.house.run(None, inputs["x"], inputs["k"]), 100).median_ms
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
    return topk.report(heat=heated, every_s=every_s, rows=rows)


def flush_placement(timers: int, calls: int) -> dict:
    topk = Topk.load()
    rng = random.Random(23)
    kept = []
    for _ in range(timers):
        pad = torch.empty(rng.randrange(0, 2048) * PAD_STEP_BYTES, dtype=torch.uint8, device=topk.device)
        kept.append((pad, GpuTimer(topk.device, topk.hardware.l2_bytes)))
    rows = []
    for name in SHAPES + ("ties_32k",):
        inputs = topk.fixed_inputs(name)
        for pass_index in range(2):
            for index, (_, timer) in enumerate(kept):
                stats = timed(lambda: topk.house.run(None, inputs["x"], inputs["k"]), calls, timer)
                rows.append({"shape": name, "pass": pass_index, "placement": index,
                             "flush_address_mod_2mib": timer._flush.data_ptr() % PAD_STEP_BYTES,
                             "median_ms": stats.median_ms, "rse": stats.rse})
    return topk.report(timers=timers, calls=calls, rows=rows, summary=summarise(rows))


def pools(pool_count: int, calls: int) -> dict:
    topk = Topk.load()
    rng = random.Random(29)
    rows = []
    for name in SHAPES + ("ties_32k",):
        inputs = topk.fixed_inputs(name)
        placed = []
        for _ in range(pool_count):
            pool = torch.cuda.MemPool()
            with torch.cuda.use_mem_pool(pool):
                pad = torch.empty(rng.randrange(1, 64) * PAD_STEP_BYTES + rng.randrange(0, 4096) * 256,
                                  dtype=torch.uint8, device=topk.device)
                placed.append((pool, pad, inputs["x"].clone()))
        for pass_index in range(2):
            for index, (pool, _, x) in enumerate(placed):
                with torch.cuda.use_mem_pool(pool):
                    stats = timed(lambda: topk.house.run(None, x, inputs["k"]), calls)
                rows.append({"shape": name, "pass": pass_index, "placement": index, "median_ms": stats.median_ms,
                             "rse": stats.rse})
        del placed
    return topk.report(pools=pool_count, calls=calls, rows=rows, summary=summarise(rows))


class UnflushedTimer(GpuTimer):
    """The scorer's timer without the L2 flush (the launch gate and events as before)."""

    def before_call(self) -> None:
        if self._gate:
            self._gate.hold()


def modules(module_count: int, calls: int, flush: bool = True) -> dict:
    topk = Topk.load()
    rng = random.Random(31)
    fixed = {name: topk.fixed_inputs(name) for name in SHAPES + ("ties_32k",)}
    timer = None if flush else UnflushedTimer(topk.device, topk.hardware.l2_bytes)
    copies, pads = [], []
    for index in range(module_count):
        pads.append(torch.empty(rng.randrange(1, 256) * PAD_STEP_BYTES, dtype=torch.uint8, device=topk.device))
        copy = import_file(HOUSE, f"house_copy_{index}")
        for inputs in fixed.values():  # first launch of each kernel loads this copy's code
            copy.run(None, inputs["x"], inputs["k"])
        torch.cuda.synchronize()
        copies.append(copy)
    rows = []
    for name, inputs in fixed.items():
        for pass_index in range(2):
            for index, copy in enumerate(copies):
                stats = timed(lambda: copy.run(None, inputs["x"], inputs["k"]), calls, timer)
                rows.append({"shape": name, "pass": pass_index, "placement": index, "median_ms": stats.median_ms,
                             "rse": stats.rse})
    return topk.report(modules=module_count, calls=calls, flush=flush, rows=rows, summary=summarise(rows))


def footprint(pad_gib: float, calls: int) -> dict:
    topk = Topk.load()
    inputs = {name: topk.fixed_inputs(name) for name in SHAPES}
    rows = []
    pads: list[torch.Tensor] = []
    for phase in ("small", "padded", "freed", "small_again"):
        if phase == "padded":
            pads = [torch.empty(1 << 30, dtype=torch.uint8, device=topk.device) for _ in range(int(pad_gib))]
        elif phase == "freed":
            pads.clear()
            torch.cuda.empty_cache()
        for name, given in inputs.items():
            x = given["x"].clone()
            stats = timed(lambda: topk.house.run(None, x, given["k"]), calls)
            rows.append({"shape": name, "phase": phase, "median_ms": stats.median_ms, "rse": stats.rse,
                         "reserved_gib": torch.cuda.memory_reserved(topk.device) / 2**30})
            del x
    for row in rows:
        print(f"{row['shape']:22s} {row['phase']:12s} {row['median_ms']:.4f} ms  reserved {row['reserved_gib']:.1f} GiB")
    return topk.report(pad_gib=pad_gib, calls=calls, rows=rows)


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


MODES = {
    "heat": lambda a: heat(float(a.get("seconds", 30))),
    "timeline": lambda a: timeline(float(a.get("heat_s", 60)), float(a.get("after_s", 150)),
                                   float(a.get("every_s", 5))),
    "placement": lambda a: placement(int(a.get("placements", 8)), int(a.get("calls", 200))),
    "flush": lambda a: flush_placement(int(a.get("timers", 8)), int(a.get("calls", 200))),
    "pools": lambda a: pools(int(a.get("pools", 8)), int(a.get("calls", 200))),
    "modules": lambda a: modules(int(a.get("modules", 8)), int(a.get("calls", 200)), a.get("flush", "true") == "true"),
    "footprint": lambda a: footprint(float(a.get("pad_gib", 32)), int(a.get("calls", 200))),
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in MODES:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    args = arguments(argv[1:])
    report = MODES[argv[0]](args)
    for name, row in report.get("summary", {}).items():
        print(f"{name:22s} spread over places {row['placement_spread'] * 100:5.2f}%   "
              f"a place's two passes (median) {row['pass_disagreement_median'] * 100:5.2f}%")
    text = json.dumps(report, indent=1)
    if args.get("out"):
        Path(args["out"]).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
