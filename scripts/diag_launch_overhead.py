"""Host cost of one solution call under each piece of the scorer's instrumentation, on a GPU.

    python scripts/diag_launch_overhead.py [problem ...]            every variant, one process each
    python scripts/diag_launch_overhead.py --variant NAME [problem ...]   one variant in this process

For the two smallest visible/held-out shapes of each problem (all problems by default), times the house
kernel's call as the worker does (GpuTimer: L2 flush, launch pad, events) and reports the medians of
  launch  host microseconds from the start event's record to the solution's return (its launches),
  idle    microseconds the GPU sat idle between the end of the launch pad and the call's first kernel
          (only where CUPTI is recording: the launch time the pad did not cover),
  device  microseconds between the events (what the scorer charges),
  bare    host microseconds of the same call after a device synchronise, with no pad or events.
Variants, each in a fresh process because CUPTI's state is process-wide:
  plain       nothing installed
  plain_pad   nothing installed, the timer's fixed 200 us launch pad instead of its launch gate
  guard       forbidden operators refused at the dispatcher (scoring.guard.ForbiddenOps)
  names       guard + CUPTI's launch callbacks naming every kernel launched (scoring.kernel_record)
  activity    names + CUPTI kernel activity records on every call
  counters    guard + CUPTI's range profiler loaded and initialised (scoring.counters)
  watch       guard + names + counters + kernel activity on a random KERNEL_ACTIVITY_SHARE of the calls:
              the worker with watch=true
  watch_pad   the same with the fixed launch pad
Every variant but the *_pad ones times with the launch gate (scoring/launch_gate.py).
A diagnostic, not a score.
"""

import contextlib
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

VARIANTS = ("plain", "plain_pad", "guard", "names", "activity", "counters", "watch", "watch_pad")
CALLS = 200


def measure(variant: str, names: list[str]) -> list[dict]:
    from scoring.counters import CounterReader
    from scoring.kernel_record import KERNEL_ACTIVITY_SHARE, CallWindow, KernelRecorder

    # Built before CUDA starts, as in the worker.
    recorder = KernelRecorder() if variant in ("names", "activity", "watch", "watch_pad") else None
    # Kept alive for the process, as in the worker (its libraries and profiler initialisation are the variant).
    counters = CounterReader() if variant in ("counters", "watch", "watch_pad") else None  # noqa: F841
    activity_share = {"activity": 1.0, "watch": KERNEL_ACTIVITY_SHARE, "watch_pad": KERNEL_ACTIVITY_SHARE}.get(
        variant, 0
    )
    draw = random.Random(0)
    import torch

    from scoring.guard import ForbiddenOps
    from scoring.problem import import_file, load_problem
    from scoring.timing import GpuTimer

    device = torch.device("cuda", 0)
    torch.cuda.set_device(device)
    timer = GpuTimer(device, torch.cuda.get_device_properties(device).L2_cache_size)
    if variant.endswith("_pad"):
        timer._gate = None  # the fixed pause (GpuTimer.launch_pad_us) instead
    rows = []
    for name in names:
        problem = load_problem(REPO / "problems" / name)
        guard = ForbiddenOps(problem.spec.forbidden_ops if not variant.startswith("plain") else ())
        with guard.suspended():
            module = import_file(
                problem.spec.directory / "solutions" / "house.py", f"diag_{name}", folder_importable=True
            )
        guard.install()
        shapes = sorted(
            problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out, key=lambda s: problem.flops(s.params)
        )[:2]
        for shape in shapes:
            params = dict(shape.params)
            gen = torch.Generator(device=device).manual_seed(0)
            with guard.suspended():
                weights = problem.module.make_weights(params, gen, device)
                inputs = problem.module.make_inputs(params, weights, gen, device)
            state = module.prepare(**weights) if hasattr(module, "prepare") else dict(weights)
            launch_us, device_us, windows = [], [], []
            listening = recorder.listening if recorder else contextlib.nullcontext
            for index in range(CALLS + 20):
                recorded = recorder is not None and draw.random() < activity_share
                if recorder:
                    recorder.kernel_activity(recorded)
                pad_start = recorder.now_ns() if recorder else 0
                timer.before_call()
                window_start = recorder.now_ns() if recorder else 0
                with listening():
                    _, timing = timer.time_call(lambda m=module, s=state, x=inputs: m.run(s, **x))
                if recorder:
                    recorder.take_launch_names()
                if index < 20:
                    continue  # warm-up
                launch_us.append(timing.launch_ms * 1e3)
                device_us.append(timing.device_ms * 1e3)
                if recorded:
                    windows.append(CallWindow(pad_start, window_start, recorder.now_ns()))
            idle_us = (
                [k.wait_after_pad_ms() * 1e3 for k in recorder.collect(windows) if k.wait_after_pad_ms() is not None]
                if windows
                else []
            )
            bare_us = []  # the same call with the device synchronised before it and no pad or events
            for _ in range(CALLS):
                torch.cuda.synchronize()
                started = time.perf_counter()
                module.run(state, **inputs)
                bare_us.append((time.perf_counter() - started) * 1e6)
            rows.append(
                {
                    "variant": variant,
                    "problem": name,
                    "shape": shape.name,
                    "bare_us": statistics.median(bare_us),
                    "launch_us": statistics.median(launch_us),
                    "launch_p90_us": statistics.quantiles(launch_us, n=10)[-1],
                    "idle_us": statistics.median(idle_us) if idle_us else None,
                    "device_us": statistics.median(device_us),
                }
            )
        guard.uninstall()
    return rows


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--variant"]:
        print(json.dumps(measure(args[1], args[2:] or problem_names())))
        return
    names = args or problem_names()
    table: dict[tuple, dict] = {}
    for variant in VARIANTS:
        done = subprocess.run(
            [sys.executable, __file__, "--variant", variant, *names], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            print(f"{variant}: failed\n{done.stderr[-3000:]}", file=sys.stderr)
            continue
        for row in json.loads(done.stdout.strip().splitlines()[-1]):
            table.setdefault((row["problem"], row["shape"]), {})[variant] = row
    print(f"{'problem':<16} {'shape':<22} " + " ".join(f"{v:>24}" for v in VARIANTS))
    print(f"{'':<16} {'':<22} " + " ".join(f"{'launch/bare/idle/device':>24}" for _ in VARIANTS) + "  (us, medians)")
    for (problem, shape), by in table.items():
        cells = []
        for v in VARIANTS:
            row = by.get(v)
            if row is None:
                cells.append(f"{'-':>24}")
                continue
            idle = f"{row['idle_us']:.0f}" if row["idle_us"] is not None else "-"
            cells.append(f"{row['launch_us']:5.0f}/{row['bare_us']:5.0f}/{idle:>4}/{row['device_us']:7.1f}")
        print(f"{problem:<16} {shape:<22} " + " ".join(cells))
    print(json.dumps([row for by in table.values() for row in by.values()]), file=sys.stderr)


def problem_names() -> list[str]:
    return sorted(p.parent.name for p in (REPO / "problems").glob("*/problem.toml"))


if __name__ == "__main__":
    main()
