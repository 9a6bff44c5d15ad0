"""The timed-path watch, on the CPU: vendor kernel names, the kernel record's arithmetic and verdicts, the
audited call's draw, the environment scrub, and a scored run whose every call was verified.

The CUPTI record itself needs a GPU: tests/scoring/test_gpu.py and the GPU corpus exercise it."""

import ctypes
import os
import threading

import pytest

from scoring import vendor_kernels
from scoring.audit import choose_audited_call
from scoring.kernel_record import (
    CallKernels,
    CallWindow,
    CollectCost,
    KernelRecorder,
    ShapeKernelSummary,
    _launched_between,
)
from scoring.spec import Shape, SpecError, load_spec
from scoring.worker.server import scrub_environment

HOUSE_AND_TORCH_KERNELS = [
    "_fp8_gemm_kernel",
    "tma_kernel",
    "_softmax_rows_kernel",
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13AUnaryFunctorIfffNS0_11MulFunctorIfEEEESt5arrayIPcLm2EEEEviT0_T1_",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(T3)",
]
VENDOR_KERNELS = [
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
    "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_execute_segment_k_off_kernel",
    "_ZN7cutlass6KernelINS_4gemm6kernel4GemmEEEvNT_6ParamsE",
    "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(T4)",
    "cudnn::engines_precompiled::nchwToNhwcKernel",
    "flash_fwd_splitkv_kernel",
    "fmha_cutlassF_bf16_aligned_64x64",
    "chunk_kda_fwd_kernel_o",
    "Marlin<256, 1, 8, 8, 4, 8>",
]


@pytest.mark.parametrize("name", VENDOR_KERNELS)
def test_vendor_library_kernels_are_named(name):
    assert vendor_kernels.is_vendor_kernel(name)
    assert vendor_kernels.judge(["_fp8_gemm_kernel", name], "in the test").startswith("failed (X21: vendor library")


@pytest.mark.parametrize("name", HOUSE_AND_TORCH_KERNELS)
def test_house_and_torch_elementwise_kernels_are_not(name):
    assert not vendor_kernels.is_vendor_kernel(name)


def test_mangled_names_are_demangled_for_the_record():
    mangled = VENDOR_KERNELS[2]
    assert (
        vendor_kernels.demangle(mangled)
        == "void cutlass::Kernel<cutlass::gemm::kernel::Gemm>(cutlass::gemm::kernel::Gemm::Params)"
    )
    assert vendor_kernels.demangle("plain_triton_kernel") == "plain_triton_kernel"


def test_busy_time_counts_overlapping_kernels_once():
    kernels = CallKernels([("a", 0, 10_000, 7), ("b", 5_000, 20_000, 8), ("c", 30_000, 31_000, 7)])
    assert kernels.busy_ms() == pytest.approx(0.021)
    assert CallKernels().busy_ms() == 0.0


def test_kernel_time_beyond_the_timed_interval_is_x10_and_small_excess_is_not():
    hidden = ShapeKernelSummary()
    for _ in range(5):
        hidden.add(CallKernels([("work", 0, 150_000, 7)]), event_ms=0.1)  # 150 us of kernels in a 100 us interval
    assert hidden.outside_timed_interval([0.1]).startswith("X10: the calls' kernels ran 1.50x")
    honest = ShapeKernelSummary()
    for _ in range(5):
        honest.add(CallKernels([("work", 0, 98_000, 7)]), event_ms=0.1)
    assert honest.outside_timed_interval([0.1]) is None
    assert honest.as_dict()["kernel_over_event_time"]["median"] == pytest.approx(0.98)


def test_the_record_judges_every_call_and_keeps_time_only_for_timed_ones():
    summary = ShapeKernelSummary()
    summary.add_untimed(CallKernels([(VENDOR_KERNELS[0], 0, 10, 7)]))  # a correctness call
    summary.add(CallKernels([("_fp8_gemm_kernel", 0, 10, 7)]), event_ms=0.01)
    record = summary.as_dict()
    assert (record["calls_with_kernel_activity"], record["timed_calls_with_kernel_activity"]) == (2, 1)
    assert record["vendor_kernels"].startswith("failed (X21: vendor library kernels launched by the solution")


class _RecordedKernels:
    """Stands in for KernelRecorder.collect: the kernels CUPTI would return for each recorded window."""

    def __init__(self, kernels_by_start_ns: dict[int, CallKernels]):
        self.kernels_by_start_ns = kernels_by_start_ns
        self.asked: list[int] = []
        self.last_collect = CollectCost(records=3, read_s=0.5, resolve_s=0.25)

    def collect(self, windows):
        self.asked += [w.start_ns for w in windows]
        return [self.kernels_by_start_ns[w.start_ns] for w in windows]


def test_launch_names_judge_calls_whose_kernel_activity_was_not_recorded():
    summary = ShapeKernelSummary()
    summary.note(CallWindow(0, 10, 20, timed=True, event_ms=0.01, launch_names=frozenset({"_fp8_gemm_kernel"})))
    summary.note(
        CallWindow(
            30, 40, 50, timed=True, event_ms=0.01, launch_names=frozenset({VENDOR_KERNELS[0]}), kernels_recorded=False
        )
    )
    recorder = _RecordedKernels({10: CallKernels([("_fp8_gemm_kernel", 12, 19, 7)], pad_end_ns=11)})
    summary.resolve(recorder)
    assert recorder.asked == [10]  # only the call with kernel activity is read back
    record = summary.as_dict()
    assert (record["calls_named"], record["calls_with_kernel_activity"]) == (2, 1)
    assert record["vendor_kernels"].startswith("failed (X21")
    assert record["gpu_idle_after_launch_pad_us"]["median"] == pytest.approx(0.001)
    assert (record["records_read"], record["read_s"], record["resolve_s"]) == (3, 0.5, 0.25)


def test_a_kernel_belongs_to_the_call_whose_window_its_launch_started_in():
    stamps = sorted([(5, 1), (15, 2), (25, 3), (25, 4)])
    assert _launched_between(stamps, 10, 25) == {2}
    assert _launched_between(stamps, 10, 26) == {2, 3, 4}
    assert _launched_between(stamps, 0, 5) == set()


class _NoFlush:
    def cuptiActivityFlushAll(self, flags):
        return 0


def _recorder_holding(api: list, kernels: list) -> KernelRecorder:
    """A recorder whose CUPTI buffers were already read: api (start_ns, correlation, thread), kernels
    (correlation, name, start_ns, end_ns, stream)."""
    recorder = KernelRecorder.__new__(KernelRecorder)
    recorder._lib, recorder._lock, recorder._completed = _NoFlush(), threading.Lock(), []
    recorder._api, recorder._kernels = list(api), list(kernels)
    return recorder


TIMED, SIDE = 7, 9  # CUPTI stream ids: the one the timer's pad ran on, and another


def _one_call(kernels: list, api: list) -> CallKernels:
    """A call window [2000, 3000) after a pad launched at 1500 (gate, stream TIMED, thread 1), with a grader
    check launched at 3500 after it on the timed stream: kernels (correlation, name, start, end, stream)."""
    window = CallWindow(pad_start_ns=1_000, start_ns=2_000, end_ns=3_000, timed=True, event_ms=0.04)
    pad_and_check = [(1, "_hold_until", 1_600, 1_900, TIMED), (99, "grader_check", 60_000, 61_000, TIMED)]
    recorder = _recorder_holding(api=[(1_500, 1, 1), (3_500, 99, 1)] + api, kernels=pad_and_check + kernels)
    return recorder.collect([window])[0]


def test_a_corrupt_record_is_cut_to_what_is_physically_possible():
    # Seen on an H100 (grok-4.5's fp8_gemm, CUDA-graph replays, kernel activity switched per call): a graph
    # kernel's record ended 48 ms after the grader's next kernel on the same stream started; X10 read 931x.
    call = _one_call(
        [(7, "_fp8_gemm_kernel", 2_500, 2_500 + 48_000_000, TIMED), (8, "copy", 2_300, 2_400, TIMED)],
        api=[(2_100, 7, 1), (2_200, 8, 1)],
    )
    assert call.records_corrected == 1
    # The end event came 40 us (event_ms) after the call's first kernel on the timed stream started at 2300.
    assert ("_fp8_gemm_kernel", 2_500, 2_300 + 40_000, TIMED) in call.kernels
    untimed = _recorder_holding(
        api=[(1_500, 1, 1), (3_500, 99, 1), (2_100, 7, 1)],
        kernels=[
            (1, "_hold_until", 1_600, 1_900, TIMED),
            (99, "check", 60_000, 61_000, TIMED),
            (7, "k", 2_500, 2_500 + 48_000_000, TIMED),
        ],
    )
    (call_untimed,) = untimed.collect([CallWindow(pad_start_ns=1_000, start_ns=2_000, end_ns=3_000)])
    assert call_untimed.kernels == [("k", 2_500, 60_000, TIMED)]  # ends when the grader's next kernel starts
    early = _one_call([(7, "k", 2_100 - 5_000_000, 2_600, TIMED)], api=[(2_150, 7, 1)])
    assert early.kernels == [("k", 2_150, 2_600, TIMED)] and early.records_corrected == 1  # not before its launch
    assert _one_call([(7, "k", 2_200, 2_600, TIMED)], api=[(2_150, 7, 1)]).records_corrected == 0
    skewed = _one_call([(7, "k", 2_200, 2_200 + 40_500, TIMED)], api=[(2_150, 7, 1)])  # 0.5 us past the event
    assert skewed.kernels == [("k", 2_200, 42_200, TIMED)] and skewed.records_corrected == 0
    summary = ShapeKernelSummary()
    for _ in range(5):
        summary.add(call, event_ms=0.06)
    assert summary.outside_timed_interval([0.06] * 5) is None
    assert summary.as_dict()["kernel_records_corrected"] == 5


def test_work_on_another_stream_is_never_cut_by_a_later_kernel_there():
    # The side stream's later kernel could be the solution's own (a programmatic dependent launch may start
    # early), so only the timed stream is bounded by the grader's next kernel: X10 still sees the hidden work.
    hidden = [(7, "side_stream_work", 2_150, 2_150 + 400_000, SIDE), (8, "later_on_side", 3_000, 3_100, SIDE)]
    call = _one_call(hidden, api=[(2_100, 7, 1), (3_600, 8, 1)])
    assert call.records_corrected == 0 and ("side_stream_work", 2_150, 402_150, SIDE) in call.kernels
    summary = ShapeKernelSummary()
    for _ in range(5):
        summary.add(call, event_ms=0.04)
    assert summary.outside_timed_interval([0.04] * 5).startswith("X10")


def _windows_by_scanning_every_record(api: list, kernels: list, windows: list[CallWindow]) -> list[CallKernels]:
    """The rules of KernelRecorder.collect read as plainly as possible, one scan of every record per window
    (what collect did before FlushedRecords indexed them): the oracle for the indexed version."""
    launched = {correlation: (stamp, thread) for stamp, correlation, thread in api}
    stamps = sorted((stamp, correlation) for stamp, correlation, _ in api)
    in_calls = set().union(*(_launched_between(stamps, w.start_ns, w.end_ns + 1) for w in windows))
    calls = []
    for window in windows:
        inside = _launched_between(stamps, window.start_ns, window.end_ns + 1)
        pad = _launched_between(stamps, window.pad_start_ns, window.start_ns)
        own = [
            kernel
            for kernel in kernels
            if kernel[0] in inside or (kernel[0] not in launched and window.start_ns <= kernel[2] <= window.end_ns)
        ]
        grader_threads = {launched[correlation][1] for correlation in pad}
        timed_streams = {stream for correlation, *_, stream in kernels if correlation in pad}
        free_ns = {}
        for correlation, _, start, _, stream in kernels:  # the grader's first kernel after the call, per stream
            stamp, thread = launched.get(correlation, (0, None))
            if (
                stream in timed_streams
                and thread in grader_threads
                and stamp > window.end_ns
                and correlation not in in_calls
            ):
                free_ns[stream] = min(free_ns.get(stream, start), start)
        if window.timed and window.event_ms > 0:
            for stream in timed_streams:
                starts = [
                    max(start, launched.get(correlation, (start,))[0])
                    for correlation, _, start, _, kernel_stream in own
                    if kernel_stream == stream
                ]
                if starts:
                    free_ns[stream] = min(free_ns.get(stream, 10**30), min(starts) + round(window.event_ms * 1e6))
        cut, corrected = [], 0
        for correlation, name, start, end, stream in own:
            bounded_start = max(start, launched.get(correlation, (start,))[0])
            bounded_end = max(bounded_start, min(end, free_ns.get(stream, end)))
            cut.append((name, bounded_start, bounded_end, stream))
            corrected += (bounded_start - start) + (end - bounded_end) > 1_000
        pad_ends = [end for correlation, _, _, end, _ in kernels if correlation in pad]
        calls.append(CallKernels(cut, max(pad_ends) if pad_ends else None, corrected))
    return calls


def _recorded_shape(rng) -> tuple[list, list, list[CallWindow]]:
    """A shape's flushed records as the worker leaves them: per recorded call, the timer's pad (grader thread
    1, timed stream), the solution's launches (threads 1 or 2; timed stream, a side stream, graph replays of
    several kernels under one correlation id, launches CUPTI did not trace, corrupt end stamps), and grader
    checks between calls."""
    api, kernels, windows = [], [], []
    clock, correlation = 1_000, 0

    def launch(thread, stream, name, duration_ns, untraced=False, count=1):
        nonlocal clock, correlation
        correlation += 1
        clock += rng.randrange(1, 400)
        if not untraced:
            api.append((clock, correlation, thread))
        for _ in range(count):
            start = clock + rng.randrange(-2_000, 5_000)
            end = start + (duration_ns if rng.random() > 0.03 else rng.randrange(10**6, 10**8))
            kernels.append((correlation, name, start, end, stream))

    for _ in range(rng.randrange(1, 25)):
        pad_start = clock + 1
        launch(1, TIMED, "flush", 3_000)
        launch(1, TIMED, "_hold_until", 1_000)
        start = clock + 1
        for _ in range(rng.randrange(0, 30)):
            launch(
                rng.choice((1, 1, 2)),
                rng.choice((TIMED, TIMED, SIDE)),
                rng.choice(("a", "b", "c")),
                rng.randrange(500, 20_000),
                untraced=rng.random() < 0.1,
                count=rng.choice((1, 1, 3)),
            )
        clock += rng.randrange(1, 200)
        windows.append(
            CallWindow(pad_start, start, clock, timed=rng.random() < 0.7, event_ms=rng.choice((0.0, 0.01, 0.05, 0.2)))
        )
        for _ in range(rng.randrange(0, 4)):
            launch(1, rng.choice((TIMED, SIDE)), "grader_check", 2_000)
    rng.shuffle(kernels)  # CUPTI's order is its own: the calls' kernels keep whichever order it gave
    return api, kernels, windows


def test_indexed_records_resolve_every_window_as_a_scan_of_every_record_would():
    import random

    corrected = 0
    for seed in range(300):
        api, kernels, windows = _recorded_shape(random.Random(seed))
        expected = _windows_by_scanning_every_record(api, kernels, windows)
        assert _recorder_holding(api, kernels).collect(windows) == expected, f"seed {seed}"
        corrected += sum(call.records_corrected for call in expected)
    assert corrected > 100  # the draws reach the cuts, not only the plain path


def test_a_machine_without_cupti_says_why_instead_of_passing(monkeypatch):
    monkeypatch.setattr("scoring.kernel_record.find_libcupti", lambda: None)
    recorder = KernelRecorder()
    assert not recorder.available
    assert recorder.describe()["outcome"] == "not verified (CUPTI library (libcupti.so) not found)"


def test_the_audited_call_is_drawn_from_the_timed_shapes_with_the_run_seed():
    shapes = [Shape("a", "visible", {"M": 1}), Shape("b", "held_out", {"M": 2}), Shape("p", "property", {"M": 3})]
    draws = {(shape.name, draw_seed) for shape, draw_seed in (choose_audited_call(shapes, seed) for seed in range(40))}
    assert {name for name, _ in draws} == {"a", "b"}
    assert all(0 <= draw_seed < 2**64 for _, draw_seed in draws) and len(draws) == 40
    assert choose_audited_call(shapes, 7) == choose_audited_call(shapes, 7)
    assert choose_audited_call(shapes[2:], 7) is None


def test_an_audit_with_a_fixed_shape_is_refused_with_the_fix(tmp_path):
    source = (load_spec.__globals__["Path"](__file__).parents[2] / "problems" / "fp8_gemm" / "problem.toml").read_text()
    folder = tmp_path / "fp8_copy"
    folder.mkdir()
    (folder / "problem.toml").write_text(
        source.replace('expect = "fp8"', 'expect = "fp8"\nshape = { M = 64, N = 64, K = 64 }')
    )
    with pytest.raises(SpecError, match=r"audits\[0\]\.shape.*remove the shape"):
        load_spec(folder)


def test_the_scrub_hides_a_profilers_variables_from_python_but_not_from_c(monkeypatch):
    monkeypatch.setenv("CEILING_TEST_INJECTED", "by-a-profiler")
    scrub_environment([name for name in os.environ if name != "CEILING_TEST_INJECTED"])
    assert "CEILING_TEST_INJECTED" not in os.environ
    getenv = ctypes.CDLL(None).getenv
    getenv.restype = ctypes.c_char_p
    assert getenv(b"CEILING_TEST_INJECTED") == b"by-a-profiler"  # the profiler's libraries still read it
    os.unsetenv("CEILING_TEST_INJECTED")
