"""Lab (issue 32): where the judge's clock spends its calibrated ~290 us and its 58-95 us high mode.

The scorer's judge and worker reduced to their clock. This process is the judge: it holds its gate, flushes the
L2 and records GO with scoring/judge/clock.py's JudgeClock, exactly as the scorer does, and queues its wait on
DONE before opening the gate. A child (this script with role=worker) is the worker: its stream waits on GO,
runs a call of known work and records DONE, as scoring/worker/timer.py does. Both stamp the GPU's global timer
(%globaltimer, ns: one clock for every context on the device), so each call's judged span splits into
switch-in (the judge's stamp right after GO to the worker's first stamp), the call, and switch-out (the worker's
last stamp to the judge's first stamp after its wait on DONE). Each stamp is a one-thread kernel (~2-3 us).

    python scripts/lab_judge_switch.py [calls=60] [work=sleep:100,copy:256] [reset=after,before] [refill_mb=0,256]
                                       [before_mb=0] [cupti=off] [gate=held] [warm=none] [judge_wait=queued] [judge_ops=scorer]
                                       [out=DIR]

work: sleep:US (torch.cuda._sleep, calibrated to US microseconds), copy:MB (a device copy of MB megabytes) or
read:MB (a sum over MB megabytes: short and memory-bound, as fp8's decode shapes are);
reset: where the worker resets persisting L2 lines, before its call (the scorer until 2026-11-27 14:05) or after;
refill_mb: how much the judge copies into a buffer before its flush (the scorer refills the call's inputs there);
before_mb: how much the worker fills on its stream before its wait on GO (the scorer's worker poisons free blocks
of the output's size there); cupti: off, names (scoring/kernel_record.py's KernelRecorder in the worker, its launch
callbacks listening around the call) or activity (that, with kernel activity records on every call; the scorer
turns them on for a random fifth), one worker process per value; gate: held (the worker queues its call while
the judge's gate spins, as an honest one does) or timed_out (the worker waits on its host until GO has completed
on the gate's own timeout, then queues its call: the regime of a call that synchronises inside, and of red team
round 7's X30_times_out_every_gate_on_purpose), or alone (no worker: the work in this process after its own
flush, as the scorer ran it before the judge/worker split; alone_beside: the same while the worker's process, and
its context, exist and idle; worker_alone: the same loop in the worker's process, no GO, no switch between its
calls: does the worker's process, or the switch, make a short call slower?; worker_alone_go: that, its stream
waiting on the judge's GO, already complete, before each call: does the wait on an interprocess event?); warm: none, touch (the worker reads one float of
every 64 KiB of its work's buffers after its wait on GO, before its first stamp: their address translations,
which another context's turn on the GPU may have evicted), code (the same operation on the first MiB: its
code and a few pages), grid_touch (every SM reads one float of every 64 KiB: each SM's translations), twice (the
whole work once, untimed, before the timed one) or flush (an L2 flush in the worker's own context, as before the
split); judge_wait: queued
(the scorer's: the judge queues its wait on DONE before it opens the gate, so it is pending while the call runs)
or seen (the judge queues it only once its host has seen DONE complete: its span then holds that reaction, and
gate_timed_out reads 1, but nothing of the judge's context waits during the call). Together they ask why short calls ran 1-3 us longer through the judge than alone
(results/judge/README.md, sixth session).
Prints one row per combination: medians (and p90) of switch-in, the call, switch-out and the event gap (the
judge's span minus the worker's events, which the scorer judges), the share of calls more than 30 us above the
combination's lowest decile of the gap (the high mode), and how many calls found the gate already open. Every
call goes to DIR/calls.jsonl. Needs a CUDA GPU; `summarize` is the part tests/scoring/test_lab_judge_switch.py
runs on the CPU.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HIGH_MODE_US = 30.0  # a call this far above its combination's lowest decile of the gap is in the high mode
DEFAULTS = {
    "calls": "60",
    "work": "sleep:100,copy:256",
    "reset": "after,before",
    "refill_mb": "0,256",
    "before_mb": "0",
    "cupti": "off",
    "gate": "held",
    "warm": "none",
    "judge_wait": "queued",
    "judge_ops": "scorer",
    "out": "",
}
GATE_SETTINGS = ("held", "timed_out", "alone", "alone_beside", "worker_alone", "worker_alone_go")
WARM_SETTINGS = ("none", "touch", "grid_touch", "code", "twice", "flush")
JUDGE_WAIT_SETTINGS = ("queued", "seen")
# What the judge's context runs on the GPU between two calls: the scorer's (its gate kernel, the refill, the
# flush as a fill and a sum, GO); kernel_flush (no gate kernel: the flush's two kernels and GO); copy_flush (no
# gate kernel: the flush as one device-to-device copy of twice the L2, then GO); go_only (GO alone: nothing of
# the judge's on the SMs; the worker's warm=flush flushes). Which of them makes the worker's call slower after
# the switch? (Without the gate the call may queue after GO: gap_us then holds the host, call_us does not.)
JUDGE_OPS_SETTINGS = ("scorer", "kernel_flush", "copy_flush", "go_only")
TOUCH_STRIDE_BYTES = 64 * 2**10  # warm=touch reads one float of every 64 KiB of the work's buffers
GATE_TIMEOUT_S = 5e-3  # scoring/judge/clock.py GATE_TIMEOUT_US
CUPTI_SETTINGS = ("off", "names", "activity")
# What a combination is: every call of one is summarized together.
DIMENSIONS = ("cupti", "gate", "warm", "judge_wait", "judge_ops", "before_mb", "work", "reset", "refill_mb")
# Dimensions added after records were made, and what those records ran (their calls.jsonl lacks the key).
EARLIER_RECORDS_RAN = {"judge_ops": "scorer"}


def parse_options(argv: list[str]) -> dict[str, str]:
    options = dict(DEFAULTS)
    for arg in argv:
        key, sep, value = arg.partition("=")
        if not sep or key not in DEFAULTS:
            raise SystemExit(f"lab_judge_switch: unknown option {arg!r}; use key=value with keys {sorted(DEFAULTS)}")
        options[key] = value
    return options


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarize(rows: list[dict]) -> list[dict]:
    """One summary per combination (DIMENSIONS) from the per-call rows (each with switch_in_us, call_us,
    switch_out_us, gap_us and gate_timed_out)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(tuple(row.get(key, EARLIER_RECORDS_RAN.get(key)) for key in DIMENSIONS), []).append(row)
    summaries = []
    for combination, calls in groups.items():
        gaps = [c["gap_us"] for c in calls]
        floor_us = _quantile(gaps, 0.1)
        summary = {**dict(zip(DIMENSIONS, combination)), "calls": len(calls)}
        for key in ("switch_in_us", "call_us", "switch_out_us", "gap_us"):
            values = [c[key] for c in calls]
            summary[key] = round(statistics.median(values), 1)
            summary[key.replace("_us", "_p90_us")] = round(_quantile(values, 0.9), 1)
        summary["high_mode_share"] = round(sum(g > floor_us + HIGH_MODE_US for g in gaps) / len(gaps), 3)
        summary["gate_timed_out"] = sum(bool(c["gate_timed_out"]) for c in calls)
        summaries.append(summary)
    return summaries


def table(summaries: list[dict]) -> str:
    head = (
        f"{'cupti':<8} {'gate':<9} {'warm':<5} {'wait':<6} {'ops':<12} {'before':>6} {'work':<11} {'reset':<6} {'refill':>6} {'calls':>5} {'in us':>8} {'call us':>8} "
        f"{'out us':>8} {'gap us':>8} {'gap p90':>8} {'high':>5} {'gate':>4}"
    )
    lines = [head]
    for s in summaries:
        lines.append(
            f"{s['cupti']:<8} {s['gate']:<9} {s['warm']:<5} {s['judge_wait']:<6} {s['judge_ops']:<12} {s['before_mb']:>6} {s['work']:<11} {s['reset']:<6} {s['refill_mb']:>6} {s['calls']:>5} "
            f"{s['switch_in_us']:>8} "
            f"{s['call_us']:>8} {s['switch_out_us']:>8} {s['gap_us']:>8} {s['gap_p90_us']:>8} "
            f"{s['high_mode_share']:>5} {s['gate_timed_out']:>4}"
        )
    return "\n".join(lines)


# -- GPU parts (imported only where they run) -----------------------------------------------------------------


try:  # Triton is on every machine this runs on (the GPU image; CI's CPU install for the interpreter)
    import triton
    import triton.language as tl

    from scoring.launch_gate import _now_ns

    @triton.jit
    def _stamp(out_ptr, index):
        """out[index] = the GPU's global timer (ns), from a one-thread kernel on the current stream."""
        tl.store(out_ptr + index, _now_ns())

    @triton.jit
    def _grid_touch(buffer_ptr, chunks, chunk_elements, out_ptr):
        """Every program reads one float of every chunk of the buffer: each SM's own address translations of
        every page (warm=touch warms them from the few SMs of one strided sum)."""
        pid = tl.program_id(0)
        total = 0.0
        for chunk in range(chunks):
            total += tl.load(buffer_ptr + chunk * chunk_elements + (pid * 32) % chunk_elements)
        tl.store(out_ptr + pid, total)
except ImportError:  # pragma: no cover -- the summary needs none of it
    _stamp = _grid_touch = None


class Work:
    """The known work of a call and its warm-ups, on buffers allocated once per amount.

    sleep:US (torch.cuda._sleep), copy:MB (a device copy of MB megabytes) or read:MB (a sum over MB megabytes: a
    short memory-bound kernel, as fp8's decode shapes are). warm, queued before the worker's first stamp: none;
    touch (one float of every TOUCH_STRIDE_BYTES of the work's buffers: their pages' translations, a negligible
    share of their lines); code (the same operation on the first MiB: its code and a few pages); flush (the
    judge's L2 flush again, in this context, as the design before the split flushed); grid_touch (one float of
    every TOUCH_STRIDE_BYTES read by every program of a grid of 2 per SM: each SM's own translations); twice (the
    work itself once more, untimed)."""

    def __init__(self, device):
        import torch

        self.torch, self.device = torch, device
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.cuda._sleep(1_000_000)
        end.record()
        end.synchronize()
        self.cycles_per_us = 1_000_000 / (start.elapsed_time(end) * 1e3)
        self.buffers: dict[str, tuple] = {}

    def _buffers(self, work: str) -> tuple:
        kind, _, amount = work.partition(":")
        if kind == "sleep":
            return ()
        if work not in self.buffers:
            elements = int(amount) * 2**20 // 4
            torch = self.torch
            made = (torch.ones(elements, device=self.device),)
            if kind == "copy":
                made = (torch.empty(elements, device=self.device), *made)
            self.buffers[work] = made
        return self.buffers[work]

    def run(self, work: str) -> None:
        kind, _, amount = work.partition(":")
        buffers = self._buffers(work)
        if kind == "sleep":
            self.torch.cuda._sleep(int(float(amount) * self.cycles_per_us))
        elif kind == "copy":
            buffers[0].copy_(buffers[1])
        elif kind == "read":
            buffers[0].sum()
        else:
            raise SystemExit(f"lab_judge_switch: work={work!r}; use sleep:US, copy:MB or read:MB")

    def flush_l2(self, value: float) -> None:
        """The judge's flush, in this context: write twice the L2 with `value`, read it back (clean lines)."""
        if not hasattr(self, "_flush"):
            l2_bytes = self.torch.cuda.get_device_properties(self.device).L2_cache_size
            self._flush = self.torch.zeros(2 * l2_bytes // 4, device=self.device)
        self._flush.fill_(value)
        self._flush.sum()

    def alone_calls(self, work: str, warm: str, calls: int, wait_on=None) -> list[float]:
        """`calls` calls of `work` in this context alone, each after this context's own L2 flush (write twice
        the L2, read it back) and `warm`: the design before the split. Microseconds between the events. With
        `wait_on` (an event, already complete), the stream waits on it before each call, as the worker's stream
        waits on the judge's GO (an interprocess event): does that wait alone slow what follows?"""
        torch = self.torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        calls_us = []
        for number in range(calls):
            if wait_on is not None:
                torch.cuda.current_stream(self.device).wait_event(wait_on)
            self.flush_l2(float(number % 2))
            self.warm(work, warm)
            start.record()
            self.run(work)
            end.record()
            end.synchronize()
            calls_us.append(start.elapsed_time(end) * 1e3)
        return calls_us

    def warm(self, work: str, how: str) -> None:
        if how not in WARM_SETTINGS:
            raise SystemExit(f"lab_judge_switch: warm={how!r}; use one or more of {', '.join(WARM_SETTINGS)}")
        buffers = self._buffers(work)
        if how == "touch":
            for buffer in buffers:
                buffer[:: TOUCH_STRIDE_BYTES // 4].sum()
        elif how == "grid_touch":  # every SM's translations of every 64 KiB of the buffers
            programs = 2 * self.torch.cuda.get_device_properties(self.device).multi_processor_count
            if not hasattr(self, "_touched"):
                self._touched = self.torch.empty(programs, device=self.device)
            for buffer in buffers:
                chunk = TOUCH_STRIDE_BYTES // 4
                _grid_touch[(programs,)](buffer, buffer.numel() // chunk, chunk, self._touched)
        elif how == "twice":  # the whole work once before the timed one: is only its first run after a switch slow?
            self.run(work)
        elif how == "flush":  # the judge's flush again, in this context
            self.flush_l2(1.0)
        elif how == "code" and buffers:
            part = 2**20 // 4
            if len(buffers) == 2:
                buffers[0][:part].copy_(buffers[1][:part])
            else:
                buffers[0][:part].sum()


def worker(cmd_fd: int, reply_fd: int, cupti: str) -> None:
    """The child: fills before_mb, waits on GO, stamps, runs the work between its events, stamps, records DONE."""
    import contextlib

    recorder = None
    if cupti != "off":  # before CUDA starts, as the scorer's worker does
        from scoring.kernel_record import KernelRecorder

        recorder = KernelRecorder()
        if not recorder.available:
            raise SystemExit(f"lab_judge_switch: cupti={cupti} but {recorder.why_not}")
        recorder.kernel_activity(cupti == "activity")
    import torch

    from scoring.timing import _loaded_cudart
    from scoring.wire import Reader, send

    device = torch.device("cuda")
    stamp = _stamp
    reader = Reader(cmd_fd)
    task = reader.get(120)
    go = torch.cuda.Event.from_ipc_handle(device, base64.b64decode(task["go"]))
    done = torch.cuda.Event(interprocess=True, enable_timing=False)
    stamps = torch.zeros(2, dtype=torch.int64, device=device)
    cudart = _loaded_cudart()
    reset = getattr(cudart, "cudaCtxResetPersistingL2Cache", None) if cudart is not None else None
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    known_work = Work(device)
    fills: dict[int, torch.Tensor] = {}
    calls_since_collect = 0
    send(reply_fd, "ready", done=base64.b64encode(done.ipc_handle()).decode())
    while True:
        order = reader.get(None)
        if order["event"] == "exit":
            return
        if order["event"] == "alone":  # gate=worker_alone: no judge, no GO; this context's own flush before each
            calls_us = known_work.alone_calls(
                order["work"], order["warm"], order["calls"], wait_on=go if order.get("wait_go") else None
            )
            send(reply_fd, "alone", calls_us=calls_us)
            continue
        if order["reset"] == "before" and reset is not None:
            reset()
        before_mb = int(order["before_mb"])
        if before_mb:
            fills.setdefault(before_mb, torch.empty(before_mb * 2**20, dtype=torch.uint8, device=device)).fill_(0xFF)
        if order["gate"] == "timed_out":  # past the gate's timeout (the judge recorded GO before "call"), then poll
            time.sleep(GATE_TIMEOUT_S)
            polled_until = time.perf_counter() + 0.1
            while not go.query() and time.perf_counter() < polled_until:
                pass
        listening = recorder.listening() if recorder is not None else contextlib.nullcontext()
        listening.__enter__()
        stream = torch.cuda.current_stream(device)
        stream.wait_event(go)
        known_work.warm(order["work"], order["warm"])
        stamp[(1,)](stamps, 0)
        start.record()
        known_work.run(order["work"])
        end.record()
        stamp[(1,)](stamps, 1)
        done.record()
        done.query()  # submits the record, as the scorer's worker does
        send(reply_fd, "queued")
        end.synchronize()
        torch.cuda.synchronize(device)
        listening.__exit__(None, None, None)
        if recorder is not None:
            recorder.take_launch_names()
            calls_since_collect += 1
            if calls_since_collect == 50:  # the scorer collects once per shape, with the device idle, as here
                recorder.collect([])
                calls_since_collect = 0
        if order["reset"] == "after" and reset is not None:
            reset()
        w0, w1 = stamps.tolist()
        send(reply_fd, "done", device_ms=start.elapsed_time(end), w0=w0, w1=w1)


def judge(options: dict[str, str]) -> list[dict]:
    """This process: the scorer's JudgeClock around each of the child's calls, its stamps beside them."""
    import torch

    from scoring.judge.clock import JudgeClock
    from scoring.wire import Reader, send

    device = torch.device("cuda")
    stamp = _stamp
    clock = JudgeClock(device, torch.cuda.get_device_properties(device).L2_cache_size)
    stamps = torch.zeros(2, dtype=torch.int64, device=device)
    rows: list[dict] = []

    def stamp_after_done() -> None:  # JudgeClock.follow_done queues it where it takes its copy of the output
        stamp[(1,)](stamps, 1)

    for cupti in options["cupti"].split(","):
        if cupti not in CUPTI_SETTINGS:
            raise SystemExit(f"lab_judge_switch: cupti={cupti!r}; use one or more of {', '.join(CUPTI_SETTINGS)}")
        cmd_r, cmd_w = os.pipe()
        reply_r, reply_w = os.pipe()
        child = subprocess.Popen(
            [sys.executable, __file__, "role=worker", f"cmd_fd={cmd_r}", f"reply_fd={reply_w}", f"cupti={cupti}"],
            pass_fds=(cmd_r, reply_w),
            cwd=REPO,
        )
        os.close(cmd_r)
        os.close(reply_w)
        reader = Reader(reply_r)
        send(cmd_w, "task", go=clock.go_handle())
        clock.adopt_done(reader.get(300)["done"])

        def running() -> bool:
            return child.poll() is None

        grid = itertools.product(
            [int(x) for x in options["refill_mb"].split(",")],
            [int(x) for x in options["before_mb"].split(",")],
            [gate for gate in options["gate"].split(",") if not gate.startswith("alone")],
            options["warm"].split(","),
            options["judge_wait"].split(","),
            options["judge_ops"].split(","),
            options["reset"].split(","),
            options["work"].split(","),
        )
        refills: dict[int, torch.Tensor] = {}
        copy_flush = [torch.empty(clock.flush_bytes // 4, device=device) for _ in range(2)]
        try:
            for refill_mb, before_mb, gate, warm, judge_wait, judge_ops, reset, work in grid:
                if judge_ops not in JUDGE_OPS_SETTINGS:
                    raise SystemExit(
                        f"lab_judge_switch: judge_ops={judge_ops!r}; use one or more of {', '.join(JUDGE_OPS_SETTINGS)}"
                    )
                if judge_wait not in JUDGE_WAIT_SETTINGS:
                    raise SystemExit(
                        f"lab_judge_switch: judge_wait={judge_wait!r}; use one or more of {', '.join(JUDGE_WAIT_SETTINGS)}"
                    )
                if gate not in GATE_SETTINGS:
                    raise SystemExit(f"lab_judge_switch: gate={gate!r}; use one or more of {', '.join(GATE_SETTINGS)}")
                refill = refills.setdefault(refill_mb, torch.empty(max(1, refill_mb * 2**20 // 4), device=device))
                combination = {
                    "cupti": cupti,
                    "gate": gate,
                    "warm": warm,
                    "judge_wait": judge_wait,
                    "judge_ops": judge_ops,
                    "before_mb": before_mb,
                    "work": work,
                    "reset": reset,
                    "refill_mb": refill_mb,
                }
                for number in range(int(options["calls"]) + 5):  # the first five warm up
                    fill = lambda: refill.fill_(float(number)) if refill_mb else None  # noqa: E731
                    if judge_ops == "scorer":
                        clock.hold(fill)
                        stamp[(1,)](stamps, 0)
                    else:  # no kernel of the judge's after GO either: switch_in_us is not measured (0)
                        hold_without_the_gate(clock, judge_ops, fill, copy_flush)
                    send(cmd_w, "call", work=work, reset=reset, before_mb=before_mb, gate=gate, warm=warm)
                    assert reader.get(60)["event"] == "queued"
                    if judge_wait == "queued":  # as the scorer: the judge's wait on DONE is pending during the call
                        clock.follow_done(stamp_after_done)
                        clock.release()
                    else:  # nothing of the judge's queued during the call: its wait once its host saw DONE complete
                        clock.release()
                        seen_by = time.perf_counter() + 60
                        while not clock._done.query() and time.perf_counter() < seen_by:
                            pass
                        clock.follow_done(stamp_after_done)
                    reading = clock.watch(running)
                    done = reader.get(60)
                    j0, j1 = stamps.tolist()
                    if number < 5:
                        continue
                    rows.append(
                        {
                            **combination,
                            "switch_in_us": (done["w0"] - j0) / 1e3 if judge_ops == "scorer" else 0.0,
                            "call_us": (done["w1"] - done["w0"]) / 1e3,
                            "switch_out_us": (j1 - done["w1"]) / 1e3,
                            "gap_us": (reading.gpu_span_ms - done["device_ms"]) * 1e3,
                            "device_ms": done["device_ms"],
                            "refill_flush_us": reading.refill_flush_ms * 1e3,
                            "gate_timed_out": reading.gate_timed_out,
                        }
                    )
            if "alone_beside" in options["gate"].split(","):  # the worker's context exists, idle
                rows += alone(options, clock, "alone_beside")
            for gate in ("worker_alone", "worker_alone_go"):  # the worker's own calls, no switch between them
                if gate not in options["gate"].split(","):
                    continue
                for warm, work in itertools.product(options["warm"].split(","), options["work"].split(",")):
                    send(
                        cmd_w,
                        "alone",
                        work=work,
                        warm=warm,
                        calls=int(options["calls"]) + 5,
                        wait_go=gate.endswith("_go"),
                    )
                    calls_us = reader.get(300)["calls_us"][5:]
                    rows += [_alone_row(gate, warm, work, call_us) for call_us in calls_us]
        finally:
            send(cmd_w, "exit")
            child.wait(timeout=30)
    if "alone" in options["gate"].split(","):  # the only context on the GPU
        rows += alone(options, clock, "alone")
    return rows


def hold_without_the_gate(clock, judge_ops: str, refill, copy_flush) -> None:
    """JudgeClock.hold less its gate kernel, with the flush as judge_ops says (JUDGE_OPS_SETTINGS)."""
    clock._number += 1
    clock._before_refill.record()
    refill()
    if judge_ops == "kernel_flush":
        clock._fill_value = 1.0 - clock._fill_value
        clock._flush.fill_(clock._fill_value)
        clock._flush.sum()
    elif judge_ops == "copy_flush":  # cudaMemcpyAsync device to device: the copy engines, if the driver so picks
        copy_flush[0].copy_(copy_flush[1])
    clock._go.record()
    clock._after_go.record()


def alone(options: dict[str, str], clock, gate: str) -> list[dict]:
    """The design before the judge/worker split, for comparison: the work in this one process, its own L2 flush
    before each call in its own context, no other context between calls. One row per call, with nothing to
    switch. (gate=worker_alone runs the same loop in the worker's process: Work.alone_calls.) Until 96ce448 this
    went through JudgeClock.hold (its gate kernel, opened at once, the persisting-L2 reset and the flush): the
    records of 2026-11-27 20:00-20:14 were made so; a plain flush now, the same in both processes."""
    known_work = Work(clock.device)
    rows = []
    for warm, work in itertools.product(options["warm"].split(","), options["work"].split(",")):
        calls_us = known_work.alone_calls(work, warm, int(options["calls"]) + 5)[5:]
        rows += [_alone_row(gate, warm, work, call_us) for call_us in calls_us]
    return rows


def _alone_row(gate: str, warm: str, work: str, call_us: float) -> dict:
    return {
        "cupti": "off",
        "gate": gate,
        "warm": warm,
        "judge_wait": "none",
        "judge_ops": "none",
        "before_mb": 0,
        "work": work,
        "reset": "none",
        "refill_mb": 0,
        "switch_in_us": 0.0,
        "call_us": call_us,
        "switch_out_us": 0.0,
        "gap_us": 0.0,
        "device_ms": call_us / 1e3,
        "gate_timed_out": False,
    }


def main(argv: list[str]) -> int:
    if argv and argv[0] == "role=worker":
        fds = dict(arg.split("=", 1) for arg in argv[1:])
        worker(int(fds["cmd_fd"]), int(fds["reply_fd"]), fds["cupti"])
        return 0
    options = parse_options(argv)
    started = time.time()
    rows = judge(options)
    summaries = summarize(rows)
    if options["out"]:
        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        (out / "calls.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
        (out / "summary.json").write_text(
            json.dumps(
                {"options": options, "wall_s": round(time.time() - started, 1), "summaries": summaries}, indent=1
            )
        )
    print(table(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
