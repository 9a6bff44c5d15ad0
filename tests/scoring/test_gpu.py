"""GPU-only checks of the real pipeline (skipped without a CUDA device; run them on the lent H100/H200).

They assert behaviour, not speed: speed is reported by scoring runs and NOTES.md, never timed here.
"""

from pathlib import Path

import pytest

from scoring.config import RunConfig
from scoring.run import run

FP8 = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm"
ADVERSARIES = Path(__file__).resolve().parents[2] / "adversarial" / "fp8_gemm"
QUICK = dict(
    device="cuda", lines="none", progress=False, min_calls=5, max_calls=20, warmup_s=0.1, budget_s=2.0, check_seeds=2
)

pytestmark = pytest.mark.gpu


def score(tmp_path, solution="", **overrides):
    config = RunConfig(problem="fp8_gemm", solution=str(solution), out=str(tmp_path), **{**QUICK, **overrides})
    return run(config, ["(gpu test)"])[0]


def test_house_kernel_passes_with_the_precision_audit_and_a_plausible_fraction(tmp_path):
    result = score(tmp_path, shapes="visible")
    assert result["status"] == "passed"
    audits = {audit["id"]: audit for audit in result["systems"][0]["audits"]}
    assert audits["tensor_precision"]["outcome"] == "passed", audits
    precision = audits["tensor_precision"]  # the last call the reservoir drew among the shape's timed calls
    assert 0 <= precision["timed_call_index"] < precision["timed_calls"] and precision["calls_profiled"] >= 1
    representative = audits["profiled_call_representative"]
    assert representative["outcome"] == "passed", representative
    assert "_fp8_gemm_kernel" in representative["evidence"]["profiled_call"]
    max_sm_clock_mhz = result["hardware"]["sm_clock_max_mhz"]
    for shape in result["systems"][0]["shapes"]:
        assert 0 < shape["fraction"] <= 1.0
        state = shape["gpu_state"]  # read by the scorer's NVML thread during the shape's timed calls
        assert state["samples"] >= 1, state
        assert 0 < state["sm_clock_mhz"]["min"] <= state["sm_clock_mhz"]["max"] <= max_sm_clock_mhz
        assert "gpu_idle" not in state["clock_event_reasons"]  # the GPU was working while it was read
    timer = result["systems"][0]["timer"]
    assert timer["l2_flush_bytes"] == 2 * result["hardware"]["l2_bytes"]
    assert timer["l2_flush"] == "write, then read (clean lines)"


def test_bf16_cast_passes_numerically_but_fails_the_audit_where_counters_are_read(tmp_path):
    result = score(tmp_path, FP8 / "solutions" / "wrong" / "bf16_cast.py", shapes="visible")
    shapes = result["systems"][0]["shapes"]
    assert all(s["status"] == "passed" for s in shapes), [(s["name"], s["status"], s.get("detail")) for s in shapes]
    outcome = result["systems"][0]["audits"][0]["outcome"]
    if outcome.startswith("not verified"):
        pytest.skip(f"no counters readable here: {outcome}")
    assert outcome.startswith("failed (X20") and result["status"] == "integrity"


def test_zeros_fail_and_a_crash_is_confined_to_its_shape(tmp_path):
    assert (
        score(tmp_path, FP8 / "solutions" / "wrong" / "zeros.py", shapes="visible", audits=False)["status"]
        == "incorrect"
    )
    crashed = score(tmp_path, FP8 / "solutions" / "wrong" / "crash_on_decode.py", shapes="visible", audits=False)
    statuses = {s["name"]: s["status"] for s in crashed["systems"][0]["shapes"]}
    assert statuses["decode_m16"] == "runtime_error"
    assert statuses["square_8192"] == "passed" and statuses["mlp_up_rect"] == "passed"


def test_work_hidden_on_a_side_stream_is_refused(tmp_path):
    """X10: the house kernel launched on another stream, never joined: the events see nothing."""
    result = score(tmp_path, ADVERSARIES / "X10_side_stream.py", shapes="visible", audits=False)
    statuses = {s["name"]: (s["status"], s.get("detail", "")) for s in result["systems"][0]["shapes"]}
    assert statuses["square_8192"][0] == "integrity" and statuses["square_8192"][1].startswith("X10"), statuses


def test_persisting_l2_asked_for_by_the_solution_is_refused(tmp_path):
    """X12: a set-aside raised at import and a persisting window over the weights: every timed shape is
    refused with the class id, and the house kernel's timer reports the check as running."""
    result = score(tmp_path, ADVERSARIES / "X12_persisting_l2_window.py", shapes="visible", audits=False)
    shapes = result["systems"][0]["shapes"]
    assert all(s["status"] == "integrity" and s["detail"].startswith("X12: L2 residency") for s in shapes), [
        (s["name"], s["status"], s.get("detail")) for s in shapes
    ]
    house = score(tmp_path, shapes="visible", audits=False)
    assert house["status"] == "passed"
    assert not house["systems"][0]["timer"]["persisting_l2_check"].startswith("not verified")


def test_a_fraction_above_the_peak_is_rejected_on_the_gpu(tmp_path):
    """X12's last line of defence: with a peak set far too low, every timed shape beats 'physics' and is
    rejected with its class id instead of being scored."""
    result = score(tmp_path, shapes="visible", audits=False, peak_tflops=1.0, peak_gbps=10.0)
    shapes = result["systems"][0]["shapes"]
    assert all(s["status"] == "rejected" and s["detail"].startswith("X12") for s in shapes)
    assert result["score"]["fraction"] == 0.0


def _compile_the_launch_gate_for_the_gpu() -> None:
    """CPU test modules collected in the same pytest process set TRITON_INTERPRET=1 at import, and triton.jit
    decides at decoration whether a kernel is interpreted: imported under it, the gate cannot be built and the
    timer falls back to its fixed pause (both timer tests then failed on an H200). The scorer's workers never
    inherit the variable (scoring/isolation.py); here the gate's module is (re)loaded without it."""
    import importlib
    import os

    saved = os.environ.pop("TRITON_INTERPRET", None)
    try:
        import scoring.launch_gate

        importlib.reload(scoring.launch_gate)
    finally:
        if saved is not None:
            os.environ["TRITON_INTERPRET"] = saved


def _gpu_timer():
    import torch

    from scoring.timing import GpuTimer

    _compile_the_launch_gate_for_the_gpu()
    device = torch.device("cuda", 0)
    return GpuTimer(device, torch.cuda.get_device_properties(device).L2_cache_size), device


def test_the_launch_gate_keeps_host_time_out_of_the_events_and_opens_by_itself():
    import time

    import torch

    timer, device = _gpu_timer()
    assert timer.describe()["launch_gate_timeout_us"] == timer.launch_gate_timeout_us
    x = torch.ones(1 << 20, device=device)

    def slow_host_call():  # two short kernels with 0.5 ms of host work between them
        y = x * 2
        time.sleep(0.0005)
        return y + 1

    slow_host_call()  # loads the kernels
    timer.before_call()
    _, gated = timer.time_call(slow_host_call)
    assert gated.launch_ms >= 0.5
    assert gated.device_ms < 0.25, gated  # the host's 0.5 ms are not charged: the gate held (1 ms timeout)

    # A call that synchronises inside waits for the gate's timeout, then runs: no deadlock, and the host
    # time after the synchronise is charged as before.
    def synchronising_call():
        y = x * 2
        torch.cuda.synchronize()
        time.sleep(0.002)
        return y + 1

    timer.before_call()
    started = time.perf_counter()
    _, synced = timer.time_call(synchronising_call)
    assert time.perf_counter() - started >= timer.launch_gate_timeout_us / 1e6
    assert synced.device_ms >= 2.0, synced


def test_the_launch_gate_keeps_another_streams_work_behind_the_start_of_the_call():
    import time

    import torch

    timer, device = _gpu_timer()
    assert timer.describe()["launch_gate_fills_every_sm"] is True
    big = torch.ones(1 << 26, device=device)  # 256 MB: a few hundred us of work
    side = torch.cuda.Stream(device)
    call_began, side_done = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def side_stream_call():
        call_began.record()  # on the timed stream, behind the gate
        with torch.cuda.stream(side):  # no wait on the timed stream: free to run while the gate holds
            big.mul_(1.0)
            side_done.record(side)
        time.sleep(0.0008)  # the host keeps the gate closed for 0.8 ms
        return big[:1] + 1

    side_stream_call()
    torch.cuda.synchronize(device)
    timer.before_call()
    timer.time_call(side_stream_call)
    torch.cuda.synchronize(device)
    assert call_began.elapsed_time(side_done) > 0  # the side work finished after the gate opened


def test_graph_replays_are_named_by_their_executable_graph():
    """A graph launch names no kernel; two captured graphs must still look different in the launch record
    (the profiled_call_representative audit compares calls by these names)."""
    import torch

    from scoring.kernel_record import KernelRecorder

    recorder = KernelRecorder()
    assert recorder.available, recorder.why_not
    x = torch.ones(1 << 16, device="cuda")
    graphs = [torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()]
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for graph, factor in zip(graphs, (2.0, 3.0)):
            with torch.cuda.graph(graph, stream=stream):
                x.mul_(factor)
    torch.cuda.synchronize()
    replayed = []
    for graph in graphs:
        recorder.take_launch_names()
        with recorder.listening():
            graph.replay()
        replayed.append(recorder.take_launch_names())
    torch.cuda.synchronize()
    assert all(len(names) == 1 and next(iter(names)).startswith("graph launch 0x") for names in replayed), replayed
    assert replayed[0] != replayed[1]


def test_gpu_state_false_reads_nothing_and_says_so(tmp_path):
    result = score(tmp_path, shapes="visible", audits=False, gpu_state=False)
    for shape in result["systems"][0]["shapes"]:
        assert shape["gpu_state"] == {"why_not": "not read (gpu_state=false)"}
        assert "timed_window_monotonic_s" not in shape
