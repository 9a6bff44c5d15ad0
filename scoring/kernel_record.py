"""Which kernels the solution launched, and for how long they ran: CUPTI in the worker.

Two CUPTI interfaces, both switched on once before the solution is imported, for the whole worker:
- Launch names, on every call. CUPTI's callback interface calls back on every runtime and driver API call
  that launches a kernel (the launch, cooperative-launch and extended-launch calls), with the kernel's
  name, while solution code runs (its import, prepare and every call). So a vendor library reached
  without any aten call (cuBLASLt through ctypes, CuPy, a C++ extension) is seen by name
  (scoring/vendor_kernels.py) on every call, timed or not. This costs host time only, which the timer's
  launch gate keeps out of the events (scoring/launch_gate.py).
- Kernel times, on a random part of the calls. Kernel activity records (`CONCURRENT_KERNEL`, which does
  not serialise kernels) give each kernel's start and end on the GPU, for the profiler's kernel time
  beside the event time (the timer's cross-check). They cost the GPU about 1 us per kernel: measured on
  an H100, the top-k house kernel's two-kernel calls timed 1-2% slower with them on every call
  (scripts/diag_launch_overhead.py), so they are switched on for a fraction of the calls,
  `KERNEL_ACTIVITY_SHARE`, each drawn before the call from the run's secret seed, whatever the call's
  kind. A kernel belongs to a call when the API call that launched it started, on any thread, inside the
  call's window; one whose launch was not traced belongs to it when it started running inside the window.

libcupti is reached through ctypes (the library PyTorch's wheels ship, or the toolkit's), reading only the
leading fields of the callback data and of the kernel and API records, which have kept their offsets
across CUPTI's versions (cupti_callbacks.h CUpti_CallbackData; cupti_activity.h CUpti_ActivityKernel4..10
and CUpti_ActivityAPI).
"""

from __future__ import annotations

import bisect
import contextlib
import ctypes
import glob
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field

from scoring import vendor_kernels

KIND_DRIVER, KIND_RUNTIME, KIND_CONCURRENT_KERNEL = 4, 5, 10
# Callback ids of the API calls that launch kernels (cupti_driver_cbid.h, cupti_runtime_cbid.h): launches,
# cooperative launches, extended launches and graph launches, with their per-thread-stream variants.
DRIVER_LAUNCH_CBIDS = (115, 116, 117, 307, 442, 477, 478, 480, 514, 515, 652, 653)
RUNTIME_LAUNCH_CBIDS = (13, 211, 213, 214, 269, 270, 272, 311, 312, 430, 431, 505, 506)
FLUSH_FORCED = 1
CUPTI_SUCCESS, CUPTI_ERROR_MAX_LIMIT_REACHED = 0, 12
BUFFER_BYTES = 8 << 20
SPARE_BUFFERS = 4  # allocated up front: CUPTI asks for a buffer from inside an API call, maybe a timed one
# Leading fields of the records (packed structs, cupti_activity.h).
_KERNEL_START, _KERNEL_END, _KERNEL_STREAM, _KERNEL_CORRELATION, _KERNEL_NAME = 16, 24, 48, 92, 104
_API_START, _API_THREAD, _API_CORRELATION = 8, 28, 32
# Kernel time over event time above this (and by more than the margin) means work ran outside the timed
# interval, e.g. on a side stream during the launch pad before the start event (X10).
KERNEL_OVER_EVENT_LIMIT = 1.05
KERNEL_OVER_EVENT_MARGIN_MS = 0.005

# Kernel activity on this share of the calls (module docstring).
KERNEL_ACTIVITY_SHARE = 0.2
CALLBACK_DOMAIN_DRIVER, CALLBACK_DOMAIN_RUNTIME, CALLBACK_API_ENTER = 1, 2, 0
# CUpti_CallbackData: callbackSite, functionParams, symbolName.
_CALLBACK_SITE, _CALLBACK_PARAMS, _CALLBACK_SYMBOL_NAME = 0, 16, 32
# Graph launches (cuGraphLaunch[_ptsz], cudaGraphLaunch[_ptsz]) name no kernel; their first parameter, the
# executable graph, tells one captured graph from another.
GRAPH_LAUNCH_CBIDS = {
    (CALLBACK_DOMAIN_DRIVER, 514),
    (CALLBACK_DOMAIN_DRIVER, 515),
    (CALLBACK_DOMAIN_RUNTIME, 311),
    (CALLBACK_DOMAIN_RUNTIME, 312),
}

_LAUNCH = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p)
_REQUEST = ctypes.CFUNCTYPE(
    None,
    ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.POINTER(ctypes.c_size_t),
)
_COMPLETE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t, ctypes.c_size_t
)


def find_libcupti() -> str | None:
    """The CUPTI library: one already mapped into this process, PyTorch's wheel's, or the toolkit's."""
    try:
        with open("/proc/self/maps") as maps:
            mapped = sorted({line.split()[-1] for line in maps if "libcupti.so" in line})
        if mapped:
            return mapped[0]
    except OSError:
        pass
    patterns = [os.path.join(p, "nvidia", "*", "lib", "libcupti.so*") for p in sys.path if p]
    patterns += [os.path.join(p, "nvidia", "cuda_cupti", "lib", "libcupti.so*") for p in sys.path if p]
    patterns += [
        "/usr/local/cuda*/extras/CUPTI/lib64/libcupti.so*",
        "/usr/local/cuda*/lib64/libcupti.so*",
        "/usr/lib/x86_64-linux-gnu/libcupti.so*",
    ]
    for pattern in patterns:
        found = sorted(glob.glob(pattern))
        if found:
            return found[-1]
    return None


@dataclass
class CallKernels:
    """The kernels one call launched: (name, start_ns, end_ns, stream) each, on CUPTI's clock; and when the
    timer's launch pad (flush and pause, queued just before the call) finished on the GPU, if recorded."""

    kernels: list[tuple[str, int, int, int]] = field(default_factory=list)
    pad_end_ns: int | None = None
    # Records whose times were cut to what is physically possible (RecordBounds): CUPTI has written kernel
    # records that end tens of milliseconds after a later kernel on the same stream started (an H100, CUDA-graph
    # replays while kernel activity is switched per call: results/kernelbench/diag/).
    records_corrected: int = 0

    def wait_after_pad_ms(self) -> float | None:
        """How long the GPU sat idle between the end of the launch pad and the call's first kernel: the part
        of the host's launch time that the pad did not cover (and the events charged to the call)."""
        if self.pad_end_ns is None or not self.kernels:
            return None
        return max(0, min(start for _, start, _, _ in self.kernels) - self.pad_end_ns) / 1e6

    def busy_ms(self) -> float:
        """Time at least one of the call's kernels was running (overlaps counted once)."""
        spans = sorted((start, end) for _, start, end, _ in self.kernels)
        busy, current_start, current_end = 0, None, None
        for start, end in spans:
            if current_end is None or start > current_end:
                if current_end is not None:
                    busy += current_end - current_start
                current_start, current_end = start, end
            else:
                current_end = max(current_end, end)
        if current_end is not None:
            busy += current_end - current_start
        return busy / 1e6


class KernelRecorder:
    """CUPTI for the whole process: launch names while `listening()`, kernel activity while
    `kernel_activity(True)`; `collect()` resolves call windows into their kernels."""

    def __init__(self):
        self.path = find_libcupti()
        self.why_not: str | None = None
        self._names: dict[int, str] = {}
        self._api: list[tuple[int, int, int]] = []  # (start_ns, correlation id, thread id)
        self._kernels: list[tuple[int, str, int, int, int]] = []  # (correlation id, name, start, end, stream)
        self._windows: list[tuple[int, int]] = []
        self._buffers: dict[int, ctypes.Array] = {}  # handed to CUPTI, by aligned address
        self._completed: list[tuple] = []  # buffers CUPTI gave back, not read yet
        self._spare: list[ctypes.Array] = [ctypes.create_string_buffer(BUFFER_BYTES + 8) for _ in range(SPARE_BUFFERS)]
        self._lock = threading.Lock()
        self.dropped_records = 0
        self.last_collect = CollectCost()
        self._listening = False
        self._launch_names: set[str] = set()  # launched while listening, not yet taken
        self._subscriber = ctypes.c_void_p()
        self._activity_on = False
        if self.path is None:
            self.why_not = "CUPTI library (libcupti.so) not found"
            return
        try:
            self._lib = ctypes.CDLL(self.path)
            self._declare()
            self._request_callback = _REQUEST(self._on_request)  # kept alive: CUPTI holds the pointers
            self._complete_callback = _COMPLETE(self._on_complete)
            self._call("cuptiActivityRegisterCallbacks", self._request_callback, self._complete_callback)
            for cbid in DRIVER_LAUNCH_CBIDS:
                self._call("cuptiActivityEnableDriverApi", cbid, 1)
            for cbid in RUNTIME_LAUNCH_CBIDS:
                self._call("cuptiActivityEnableRuntimeApi", cbid, 1)
            self._launch_callback = _LAUNCH(self._on_launch)
            self._call("cuptiSubscribe", ctypes.byref(self._subscriber), self._launch_callback, None)
            for domain, cbids in (
                (CALLBACK_DOMAIN_DRIVER, DRIVER_LAUNCH_CBIDS),
                (CALLBACK_DOMAIN_RUNTIME, RUNTIME_LAUNCH_CBIDS),
            ):
                for cbid in cbids:
                    self._call("cuptiEnableCallback", 1, self._subscriber, domain, cbid)
        except (OSError, AttributeError, RuntimeError) as exc:
            self.why_not = f"CUPTI could not be enabled: {exc}"

    @property
    def available(self) -> bool:
        return self.why_not is None

    def describe(self) -> dict:
        if not self.available:
            return {"tool": None, "outcome": f"not verified ({self.why_not})"}
        return {
            "tool": f"CUPTI ({self.path})",
            "launch_names": "every launch call of solution code (callback interface): import, prepare, every call",
            "kernel_activity": f"concurrent-kernel records on a random {KERNEL_ACTIVITY_SHARE:.0%} of the calls, "
            "drawn before each call from the run's secret seed",
            "enabled": "for the whole worker, before the solution is imported",
        }

    # -- ctypes plumbing ---------------------------------------------------------------------------------
    def _declare(self) -> None:
        lib = self._lib
        lib.cuptiActivityRegisterCallbacks.argtypes = (_REQUEST, _COMPLETE)
        lib.cuptiActivityEnable.argtypes = (ctypes.c_int,)
        lib.cuptiActivityDisable.argtypes = (ctypes.c_int,)
        lib.cuptiSubscribe.argtypes = (ctypes.POINTER(ctypes.c_void_p), _LAUNCH, ctypes.c_void_p)
        lib.cuptiEnableCallback.argtypes = (ctypes.c_uint32, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32)
        lib.cuptiActivityEnableDriverApi.argtypes = (ctypes.c_uint32, ctypes.c_uint8)
        lib.cuptiActivityEnableRuntimeApi.argtypes = (ctypes.c_uint32, ctypes.c_uint8)
        lib.cuptiActivityFlushAll.argtypes = (ctypes.c_uint32,)
        lib.cuptiGetTimestamp.argtypes = (ctypes.POINTER(ctypes.c_uint64),)
        lib.cuptiActivityGetNextRecord.argtypes = (
            ctypes.POINTER(ctypes.c_uint8),
            ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_void_p),
        )
        lib.cuptiActivityGetNumDroppedRecords.argtypes = (
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.POINTER(ctypes.c_size_t),
        )

    def _call(self, name: str, *args) -> None:
        code = getattr(self._lib, name)(*args)
        if code != CUPTI_SUCCESS:
            raise RuntimeError(f"{name} returned CUPTI error {code}")

    def _on_launch(self, userdata, domain, cbid, data) -> None:
        """CUPTI's callback on a launch call, on the launching thread: keep the kernel's name."""
        if not self._listening or ctypes.c_int.from_address(data + _CALLBACK_SITE).value != CALLBACK_API_ENTER:
            return
        symbol = ctypes.c_void_p.from_address(data + _CALLBACK_SYMBOL_NAME).value
        if symbol:  # read now: the string is only promised for the callback's duration
            self._launch_names.add(ctypes.string_at(symbol).decode(errors="replace"))
        elif (domain, cbid) in GRAPH_LAUNCH_CBIDS:
            params = ctypes.c_void_p.from_address(data + _CALLBACK_PARAMS).value
            graph = ctypes.c_void_p.from_address(params).value if params else None
            self._launch_names.add(f"graph launch {graph or 0:#x}")

    @contextlib.contextmanager
    def listening(self):
        """Keep the names of the kernels launched inside (solution code; the grader's own are not kept)."""
        self._listening = True
        try:
            yield
        finally:
            self._listening = False

    def take_launch_names(self) -> set[str]:
        # A graph launch names no kernel (its kernels were named when the solution captured them): it is kept
        # as "graph launch <executable graph>", so that calls replaying different graphs differ.
        names, self._launch_names = self._launch_names, set()
        return names

    def kernel_activity(self, on: bool) -> None:
        """Kernel activity records on or off (between calls, with nothing running)."""
        if on != self._activity_on:
            self._call("cuptiActivityEnable" if on else "cuptiActivityDisable", KIND_CONCURRENT_KERNEL)
            self._activity_on = on

    def _on_request(self, buffer_out, size_out, max_records_out) -> None:
        with self._lock:
            buffer = self._spare.pop() if self._spare else ctypes.create_string_buffer(BUFFER_BYTES + 8)
            address = (ctypes.addressof(buffer) + 7) & ~7  # records are 8-byte aligned
            self._buffers[address] = buffer
        buffer_out[0] = ctypes.cast(address, ctypes.POINTER(ctypes.c_uint8))
        size_out[0] = BUFFER_BYTES
        max_records_out[0] = 0

    def _on_complete(self, context, stream_id, buffer, size, valid_size) -> None:
        """CUPTI hands a buffer back, maybe on its own thread in the middle of a timed call: keep it for
        `take` to read on the grader's thread, and hold the GIL no longer than this."""
        with self._lock:
            self._completed.append((context, stream_id, ctypes.addressof(buffer.contents), valid_size))

    def _read(self, context, stream_id, address: int, valid_size: int) -> None:
        record = ctypes.c_void_p(None)
        buffer = ctypes.cast(address, ctypes.POINTER(ctypes.c_uint8))
        while self._lib.cuptiActivityGetNextRecord(buffer, valid_size, ctypes.byref(record)) == CUPTI_SUCCESS:
            address_of_record = record.value
            kind = ctypes.c_uint32.from_address(address_of_record).value
            if kind == KIND_CONCURRENT_KERNEL:
                self._kernels.append(
                    (
                        ctypes.c_uint32.from_address(address_of_record + _KERNEL_CORRELATION).value,
                        self._name(ctypes.c_void_p.from_address(address_of_record + _KERNEL_NAME).value),
                        ctypes.c_uint64.from_address(address_of_record + _KERNEL_START).value,
                        ctypes.c_uint64.from_address(address_of_record + _KERNEL_END).value,
                        ctypes.c_uint32.from_address(address_of_record + _KERNEL_STREAM).value,
                    )
                )
            elif kind in (KIND_RUNTIME, KIND_DRIVER):
                self._api.append(
                    (
                        ctypes.c_uint64.from_address(address_of_record + _API_START).value,
                        ctypes.c_uint32.from_address(address_of_record + _API_CORRELATION).value,
                        ctypes.c_uint32.from_address(address_of_record + _API_THREAD).value,
                    )
                )
        dropped = ctypes.c_size_t(0)
        if self._lib.cuptiActivityGetNumDroppedRecords(context, stream_id, ctypes.byref(dropped)) == CUPTI_SUCCESS:
            self.dropped_records += dropped.value
        with self._lock:
            returned = self._buffers.pop(address, None)
            if returned is not None:
                self._spare.append(returned)

    def _name(self, pointer: int | None) -> str:
        if not pointer:
            return "?"
        name = self._names.get(pointer)
        if name is None:  # CUPTI shares one string per kernel across records: read it once
            name = self._names[pointer] = ctypes.string_at(pointer).decode(errors="replace")
        return name

    def now_ns(self) -> int:
        stamp = ctypes.c_uint64(0)
        self._lib.cuptiGetTimestamp(ctypes.byref(stamp))
        return stamp.value

    # -- per call ----------------------------------------------------------------------------------------
    def collect(self, windows: list[CallWindow]) -> list[CallKernels]:
        """The kernels of each call window, in order. Flushes CUPTI once for all of them (the caller has
        synchronised the device) and drops every record outside the windows. Flushing after every call
        instead made each next call's first launch wait for a fresh buffer: about 100 us of host time
        inside the timed region (scripts/diag_launch_overhead.py on an H100)."""
        started = time.perf_counter()
        self._lib.cuptiActivityFlushAll(FLUSH_FORCED)
        with self._lock:
            completed, self._completed = self._completed, []
        for buffer in completed:
            self._read(*buffer)
        api, self._api = self._api, []
        kernels, self._kernels = self._kernels, []
        read = time.perf_counter()
        flushed = FlushedRecords(api, kernels, windows)
        calls = [flushed.call(window) for window in windows]
        self.last_collect = CollectCost(len(api) + len(kernels), read - started, time.perf_counter() - read)
        return calls

    def take(self, window: tuple[int, int]) -> CallKernels:
        """One call's kernels at once, flushing CUPTI (probes; the worker defers with `collect`)."""
        return self.collect([CallWindow(window[0], window[0], window[1])])[0]


@dataclass(frozen=True)
class CollectCost:
    """What reading one flush cost the grader (between calls, never inside a timed window)."""

    records: int = 0  # API and kernel records read
    read_s: float = 0.0  # flushing CUPTI and reading its buffers
    resolve_s: float = 0.0  # finding each window's kernels among them


class FlushedRecords:
    """One flush's API and kernel records, indexed so that each window's kernels are found without reading
    every record again. When every window scanned every record, a host-bound reference line paid windows x
    records: paged attention's eager line spent 20.7 s of an H100 run reading its 2211 calls' records, 9.4 ms a
    call (results/h100_sxm/20261126T113636Z-paged_attention-house-9f200b.json, `phases_s.kernel_record`);
    indexed, 2.0 ms a call, mostly CUPTI's buffers read through ctypes (docs/measurements.md, "Wall time of a run").

    api: (start_ns, correlation id, thread id) per launch call; kernels: (correlation id, name, start_ns,
    end_ns, stream) per kernel, in CUPTI's order, which each call's kernels keep."""

    def __init__(
        self, api: list[tuple[int, int, int]], kernels: list[tuple[int, str, int, int, int]], windows: list[CallWindow]
    ):
        self.kernels = kernels
        self.launched = {correlation: (stamp, thread) for stamp, correlation, thread in api}
        self.launched_ns = {correlation: stamp for correlation, (stamp, _) in self.launched.items()}
        self.stamps = sorted((stamp, correlation) for stamp, correlation, _ in api)
        self.positions: dict[int, list[int]] = {}  # correlation id -> its kernels' positions in `kernels`
        unlaunched = []  # kernels whose launch was not traced: (start_ns, position)
        for position, (correlation, _, start, _, _) in enumerate(kernels):
            if correlation in self.launched:
                self.positions.setdefault(correlation, []).append(position)
            else:
                unlaunched.append((start, position))
        self.unlaunched = sorted(unlaunched)
        in_calls = set().union(*(_launched_between(self.stamps, w.start_ns, w.end_ns + 1) for w in windows))
        # The grader's kernels (launched outside every call), per (stream, launching thread): launch stamps in
        # order and, from each on, the earliest start among it and the later ones (RecordBounds).
        later: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for correlation, _, start, _, stream in kernels:
            if correlation in self.launched and correlation not in in_calls:
                stamp, thread = self.launched[correlation]
                later.setdefault((stream, thread), []).append((stamp, start))
        self.later_stamps: dict[tuple[int, int], list[int]] = {}
        self.later_first_start: dict[tuple[int, int], list[int]] = {}
        for group, entries in later.items():
            entries.sort()
            earliest, first_start = None, []
            for _, start in reversed(entries):
                earliest = start if earliest is None else min(earliest, start)
                first_start.append(earliest)
            self.later_stamps[group] = [stamp for stamp, _ in entries]
            self.later_first_start[group] = first_start[::-1]

    def _of(self, correlations: set[int]) -> list[int]:
        return [position for correlation in correlations for position in self.positions.get(correlation, ())]

    def call(self, window: CallWindow) -> CallKernels:
        """The kernels of the call in `window`: those launched inside it, and those whose launch was not
        traced that started running inside it; cut to what is physically possible (RecordBounds)."""
        inside = self._of(_launched_between(self.stamps, window.start_ns, window.end_ns + 1))
        low = bisect.bisect_left(self.unlaunched, (window.start_ns, -1))
        high = bisect.bisect_right(self.unlaunched, (window.end_ns, len(self.kernels)))
        inside += [position for _, position in self.unlaunched[low:high]]
        own = [self.kernels[position] for position in sorted(inside)]
        pad = _launched_between(self.stamps, window.pad_start_ns, window.start_ns)
        pad_kernels = [self.kernels[position] for position in self._of(pad)]
        bounds = self.bounds(window, own, pad, pad_kernels)
        bounded = [bounds.cut(*kernel) for kernel in own]
        return CallKernels(
            [kernel for kernel, _ in bounded],
            max((end for _, _, _, end, _ in pad_kernels), default=None),
            sum(1 for _, corrected in bounded if corrected),
        )

    def bounds(self, window: CallWindow, own: list, pad: set[int], pad_kernels: list) -> RecordBounds:
        """The bounds for the call in `window`, whose own records are `own`, after the timer's pad (the flush
        and gate the grader launched just before the call: launch calls `pad`, kernels `pad_kernels`)."""
        grader_threads = {self.launched[correlation][1] for correlation in pad}
        timed_streams = {stream for *_, stream in pad_kernels}
        free_ns: dict[int, int] = {}
        for stream in timed_streams:
            for thread in grader_threads:
                stamps = self.later_stamps.get((stream, thread), [])
                first_later_launch = bisect.bisect_right(stamps, window.end_ns)
                if first_later_launch < len(stamps):
                    start = self.later_first_start[(stream, thread)][first_later_launch]
                    free_ns[stream] = min(free_ns.get(stream, start), start)
        bounds = RecordBounds(self.launched_ns, free_ns)
        if window.timed and window.event_ms > 0:
            for stream in timed_streams:
                starts = [
                    max(start, bounds.launched_ns.get(correlation, start))
                    for correlation, _, start, _, kernel_stream in own
                    if kernel_stream == stream
                ]
                if starts:
                    event_end_ns = min(starts) + round(window.event_ms * 1e6)
                    free_ns[stream] = min(free_ns.get(stream, event_end_ns), event_end_ns)
        return bounds


# A cut this small may be the two clocks' skew (CUPTI's against the events'): applied, but not reported.
CUT_REPORTED_NS = 1_000


@dataclass
class RecordBounds:
    """What is physically possible for a call's kernel records, so that a corrupt record cannot read as
    work outside the timed interval (X10) or hide any:
    - a kernel starts no earlier than its own launch call;
    - a kernel on the timed stream (the one the timer's pad ran on) ends before the first kernel that the
      grader's thread queued on that stream after the call returned starts: a plain launch (the grader's
      kernels are never programmatic dependent launches) waits for all earlier work on its stream;
    - on a timed call, a kernel on the timed stream ends within the event time after the call's first
      kernel there started: the start event completed before that kernel began, and the end event only
      completes once every kernel queued before it on the stream has ended.
    The end bounds apply to the timed stream only: everything there lies inside the timer's events anyway,
    while a kernel on another stream, where X10's hidden work runs, is never cut."""

    launched_ns: dict[int, int]
    timed_stream_free_ns: dict[int, int]  # timed stream -> the latest its call's kernels can have ended

    def cut(self, correlation: int, name: str, start: int, end: int, stream: int) -> tuple[tuple, bool]:
        """The record within the bounds, and whether it had to be cut by more than CUT_REPORTED_NS."""
        bounded_start = max(start, self.launched_ns.get(correlation, start))
        bounded_end = max(bounded_start, min(end, self.timed_stream_free_ns.get(stream, end)))
        cut_ns = (bounded_start - start) + (end - bounded_end)
        return (name, bounded_start, bounded_end, stream), cut_ns > CUT_REPORTED_NS


def _launched_between(stamps: list[tuple[int, int]], first_ns: int, last_ns: int) -> set[int]:
    """Correlation ids of the launch calls that started in [first_ns, last_ns) (stamps sorted)."""
    low = bisect.bisect_left(stamps, (first_ns, -1))
    high = bisect.bisect_left(stamps, (last_ns, -1))
    return {correlation for _, correlation in stamps[low:high]}


@dataclass(frozen=True)
class CallWindow:
    """One call as the recorder saw it: the names it launched; if its kernel activity was recorded, when
    it ran on CUPTI's clock (the timer's flush and gate from pad_start_ns, the solution's launches from
    start_ns to end_ns). Whether the call was timed, and its event time."""

    pad_start_ns: int
    start_ns: int
    end_ns: int
    timed: bool = False
    event_ms: float = 0.0
    launch_names: frozenset[str] = frozenset()
    kernels_recorded: bool = True


@dataclass
class ShapeKernelSummary:
    """What a shape's timed calls launched, as the result file records it."""

    calls: list[CallKernels] = field(default_factory=list)  # every call: checks, warm-up, timed
    ratios: list[float] = field(default_factory=list)  # kernel busy time / event time, per timed call
    waits_after_pad_ms: list[float] = field(default_factory=list)  # per timed call, where the pad was recorded
    records_corrected: int = 0  # kernel records cut to the physically possible (RecordBounds)
    pending: list[CallWindow] = field(default_factory=list)  # calls not yet resolved into their kernels
    launch_names: set[str] = field(default_factory=set)  # every call's, and the solution's prepare
    calls_named: int = 0
    collect_cost: CollectCost = field(default_factory=CollectCost)  # reading the records, summed over flushes

    def note(self, window: CallWindow | None) -> None:
        """A call's window, resolved into its kernels by `resolve` once the shape's calls are done."""
        if window is not None:
            self.pending.append(window)

    def resolve(self, recorder: KernelRecorder) -> None:
        """Read the noted calls' kernels from the recorder (one flush for all of them)."""
        windows, self.pending = self.pending, []
        self.launch_names.update(name for window in windows for name in window.launch_names)
        self.calls_named += len(windows)
        recorded = [window for window in windows if window.kernels_recorded]
        for window, kernels in zip(recorded, recorder.collect(recorded)):
            if window.timed:
                self.add(kernels, window.event_ms)
            else:
                self.add_untimed(kernels)
        cost = recorder.last_collect
        self.collect_cost = CollectCost(
            self.collect_cost.records + cost.records,
            self.collect_cost.read_s + cost.read_s,
            self.collect_cost.resolve_s + cost.resolve_s,
        )

    def add(self, kernels: CallKernels | None, event_ms: float) -> None:
        """A timed call."""
        if kernels is None:
            return
        self.calls.append(kernels)
        self.records_corrected += kernels.records_corrected
        if event_ms > 0:
            self.ratios.append(kernels.busy_ms() / event_ms)
        wait_ms = kernels.wait_after_pad_ms()
        if wait_ms is not None:
            self.waits_after_pad_ms.append(wait_ms)

    def add_untimed(self, kernels: CallKernels | None) -> None:
        """A correctness, warm-up or last (refilled) call: its kernels are judged, its time is not kept."""
        if kernels is not None:
            self.calls.append(kernels)
            self.records_corrected += kernels.records_corrected

    def raw_names(self) -> set[str]:
        return self.launch_names | {name for call in self.calls for name, *_ in call.kernels}

    def names(self) -> list[str]:
        return sorted({vendor_kernels.demangle(name) for name in self.raw_names()})

    def vendor_outcome(self) -> str:
        return vendor_kernels.judge(self.raw_names(), "launched by the solution")

    def outside_timed_interval(self, event_ms: list[float]) -> str | None:
        """X10 detail when the calls' kernels ran longer than their timed intervals (median over calls)."""
        if not self.ratios:
            return None
        ratio = statistics.median(self.ratios)
        median_event_ms = statistics.median(event_ms) if event_ms else 0.0
        excess_ms = (ratio - 1.0) * median_event_ms
        if ratio > KERNEL_OVER_EVENT_LIMIT and excess_ms > KERNEL_OVER_EVENT_MARGIN_MS:
            return (
                f"X10: the calls' kernels ran {ratio:.2f}x the timed interval (median; {excess_ms * 1e3:.0f} us "
                "of kernel time outside the events: work on another stream before the start event)"
            )
        return None

    def as_dict(self) -> dict:
        kernels_per_call = [len(c.kernels) for c in self.calls]
        ratios = sorted(self.ratios)
        waits_us = sorted(w * 1e3 for w in self.waits_after_pad_ms)
        return {
            "calls_named": self.calls_named,
            "calls_with_kernel_activity": len(self.calls),
            "timed_calls_with_kernel_activity": len(self.ratios),
            "kernel_records_corrected": self.records_corrected,  # cut to the physically possible (RecordBounds)
            "kernels_per_call_median": statistics.median(kernels_per_call) if kernels_per_call else None,
            "kernel_names": self.names()[:20],
            "vendor_kernels": self.vendor_outcome(),
            "kernel_over_event_time": {
                "median": statistics.median(ratios),
                "min": ratios[0],
                "max": ratios[-1],
                "p10": ratios[len(ratios) // 10],
                "p90": ratios[(9 * len(ratios)) // 10],
            }
            if ratios
            else None,
            # What reading the records cost the grader, between calls.
            "records_read": self.collect_cost.records,
            "read_s": round(self.collect_cost.read_s, 3),
            "resolve_s": round(self.collect_cost.resolve_s, 3),
            # Host launch time beyond the timer's launch pad, charged to the call (scoring/timing.py).
            "gpu_idle_after_launch_pad_us": {
                "median": statistics.median(waits_us),
                "p90": waits_us[(9 * len(waits_us)) // 10],
                "max": waits_us[-1],
            }
            if waits_us
            else None,
        }
