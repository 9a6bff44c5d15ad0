"""The pieces the judge uses at its boundary with the worker, each against what a worker could send or plant:
JSON lines (scoring/wire.py), the files the judge shares in the worker's scratch (scoring/shared_tensors.py)
and the worker's times (scoring/judge/link.py). The whole-run versions are the X32/X33 adversaries."""

import math
import os
from pathlib import Path

import pytest
import torch

from scoring.judge.cross_check import GPU_GAP_LIMIT_US, judge_clock_outcome
from scoring.judge.link import Calibration
from scoring.judge.messages import worker_timing
from scoring.shared_tensors import DescriptorError, OutputMailbox, OutputOpener, SharedFile
from scoring.wire import Reader, WireError


def _reader_of(data: bytes) -> Reader:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)
    return Reader(read_fd)


def test_nan_and_infinity_arrive_as_null_so_no_statistic_takes_them():
    message = _reader_of(b'{"event": "done", "timing": {"device_ms": NaN, "tail_ms": Infinity, "x": -Infinity}}\n')
    assert message.get(1.0)["timing"] == {"device_ms": None, "tail_ms": None, "x": None}


@pytest.mark.parametrize(
    "line, reason",
    [
        (b"[" * 20_000 + b"\n", "not JSON"),  # deeper than the parser's recursion: malformed, not a judge crash
        (b'{"no_event": 1}\n', "without an event"),
        (b"not json\n", "not JSON"),
    ],
    ids=["nested", "no_event", "not_json"],
)
def test_a_line_the_judge_cannot_read_is_malformed(line, reason):
    with pytest.raises(WireError, match=reason) as raised:
        _reader_of(line).get(1.0)
    assert raised.value.kind == "malformed"


@pytest.mark.parametrize(
    "reported",
    [
        {"device_ms": None, "host_ms": 1.0, "tail_ms": 0.0, "launch_ms": 0.1},
        {"device_ms": -0.5, "host_ms": 1.0, "tail_ms": 0.0, "launch_ms": 0.1},
        {"device_ms": float("inf"), "host_ms": 1.0, "tail_ms": 0.0, "launch_ms": 0.1},
        {"device_ms": True, "host_ms": 1.0, "tail_ms": 0.0, "launch_ms": 0.1},
        {"device_ms": "1.0", "host_ms": 1.0, "tail_ms": 0.0, "launch_ms": 0.1},
        {"device_ms": 0.0, "host_ms": 0.0, "tail_ms": 0.0, "launch_ms": 0.0},  # no call takes no time
        {"device_ms": 1.0, "host_ms": 1.0, "tail_ms": 0.0},  # a field missing
        {"device_ms": 1.0, "host_ms": 1.0, "tail_ms": 0.0, "launch_ms": 0.1, "bonus": 1.0},
        [1.0, 1.0, 0.0, 0.1],
    ],
)
def test_times_that_are_not_finite_positive_numbers_are_refused(reported):
    assert worker_timing(reported) is None


def test_well_formed_times_are_taken_as_floats():
    timing = worker_timing({"device_ms": 1, "host_ms": 2.5, "tail_ms": 0.0, "launch_ms": 0.25})
    assert timing == {"device_ms": 1.0, "host_ms": 2.5, "tail_ms": 0.0, "launch_ms": 0.25}
    assert all(isinstance(v, float) and math.isfinite(v) for v in timing.values())


def test_shared_files_get_names_no_worker_can_predict(tmp_path):
    first, second = SharedFile(tmp_path, "input", 64).path, SharedFile(tmp_path, "input", 64).path
    assert first != second and first.parent == second.parent == tmp_path
    assert first.name.startswith("input-") and first.stat().st_size == 64


def test_a_planted_link_or_file_under_the_name_refuses_the_creation(tmp_path, monkeypatch):
    """The worker cannot guess the name; if it could, O_EXCL|O_NOFOLLOW would refuse what it planted there,
    and the host file the link points at is never created."""
    outside = tmp_path / "host" / "never-created.bin"
    outside.parent.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr("scoring.shared_tensors.secrets.token_hex", lambda n: "guessed")
    (scratch / "output-guessed.bin").symlink_to(outside)
    with pytest.raises(FileExistsError):
        SharedFile(scratch, "output", 64)
    assert not outside.exists()
    (scratch / "output-guessed.bin").unlink()
    (scratch / "output-guessed.bin").write_bytes(b"planted")
    with pytest.raises(FileExistsError):
        SharedFile(scratch, "output", 64)


def test_the_judge_reads_its_own_inode_even_when_the_name_is_replaced(tmp_path):
    """The worker can rename or replace the mailbox's name in its scratch: the judge's descriptor is the inode
    it created, so what it reads is what was copied into that inode, never the replacement's bytes."""
    mailbox = OutputMailbox(tmp_path, (2, 3), torch.float32)
    worker_view = torch.from_file(str(mailbox.path), shared=True, size=6, dtype=torch.float32)  # as the worker maps it
    worker_view.copy_(torch.arange(6, dtype=torch.float32))
    os.replace(mailbox.path, tmp_path / "moved.bin")
    mailbox.path.write_bytes(b"\0" * 24)  # a new file under the old name
    desc = {
        "type": "torch.Tensor",
        "shape": [2, 3],
        "dtype": "torch.float32",
        "device": "cpu",
        "layout": "torch.strided",
        "mailbox": str(mailbox.path),
    }
    out = OutputOpener(torch.device("cpu")).open(desc, torch.float32, mailbox)
    assert out.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_a_descriptor_naming_another_file_is_a_contract_failure(tmp_path):
    mailbox = OutputMailbox(tmp_path, (2,), torch.float32)
    host_file = tmp_path / "host.bin"
    desc = {
        "type": "torch.Tensor",
        "shape": [2],
        "dtype": "torch.float32",
        "device": "cpu",
        "layout": "torch.strided",
        "mailbox": str(host_file),
    }
    with pytest.raises(DescriptorError, match="not copied into the judge's mailbox"):
        OutputOpener(torch.device("cpu")).open(desc, torch.float32, mailbox)
    assert not host_file.exists()
    missing = {k: v for k, v in desc.items() if k != "mailbox"}
    with pytest.raises(DescriptorError):
        OutputOpener(torch.device("cpu")).open(missing, torch.float32, mailbox)


def _cuda_descriptor(counter_name: bytes, counter_index, device_index=0) -> dict:
    """An output descriptor as a GPU worker sends it (torch's _share_cuda_ tuple, bytes in base64)."""
    import base64

    shared = [device_index, b"\1" * 64, 64, 0, counter_name, counter_index, b"\2" * 64, True]
    return {
        "type": "torch.Tensor",
        "shape": [4],
        "stride": [1],
        "offset": 0,
        "dtype": "torch.float32",
        "device": "cuda",
        "layout": "torch.strided",
        "cuda_ipc": [base64.b64encode(x).decode() if isinstance(x, bytes) else x for x in shared],
    }


@pytest.mark.parametrize(
    "name, index, why",
    [
        (b"/torch_12_345_6", 10_000, "reference counter"),  # past the end of torch's counter file
        (b"/torch_12_345_6", -1, "reference counter"),
        (b"/../../etc/passwd", 0, "reference counter"),  # a file torch never made
        (b"/ceiling-results", 0, "reference counter"),
    ],
)
def test_the_judge_never_lets_torch_write_a_counter_the_worker_names(name, index, why):
    """On the GPU torch opens the counter file a descriptor names and writes at its index when the judge
    frees the storage: the judge refuses any name torch would not make and any index outside its file,
    before anything is opened (this CPU build of torch could not open a CUDA handle anyway)."""
    with pytest.raises(DescriptorError, match=why):
        OutputOpener(torch.device("cuda:0")).open(_cuda_descriptor(name, index), torch.float32)


def test_an_output_on_another_device_is_refused():
    with pytest.raises(DescriptorError, match="device"):
        OutputOpener(torch.device("cuda:0")).open(_cuda_descriptor(b"/torch_1_2_3", 0, device_index=1), torch.float32)


INNOCENT_SOURCE = '''import torch


def run(state, a, a_scale):  # the source the judge audits: wrong (zeros)
    return torch.zeros((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16, device=a.device)
'''
PLANTED_CODE = '''from _correct import correct


def run(state, a, a_scale):  # what the bytecode beside it would run instead: the right answer
    return correct(state, a, a_scale)
'''


def test_bytecode_shipped_beside_the_source_never_runs(tmp_path):
    """An unchecked-hash .pyc in the solution's __pycache__ is what CPython would run in place of the source
    (red team round 3: an innocent source passed with a planted bytecode). The worker looks for bytecode in
    an empty folder of its own, so the source runs: its zeros are incorrect, not the planted answer."""
    import dataclasses
    import importlib.util
    import shutil
    from importlib._bootstrap_external import _code_to_hash_pyc

    from scoring.corpus.cases import CORPUS_ROOT, corpus_cases
    from scoring.corpus.runner import CorpusConfig, run_config
    from scoring.run import run

    folder = tmp_path / "solution"
    folder.mkdir()
    shutil.copy(CORPUS_ROOT / "fp8_gemm" / "_correct.py", folder / "_correct.py")
    solution = folder / "solution.py"
    solution.write_text(INNOCENT_SOURCE)
    pyc = Path(importlib.util.cache_from_source(str(solution)))
    pyc.parent.mkdir()
    pyc.write_bytes(
        _code_to_hash_pyc(
            compile(PLANTED_CODE, str(solution), "exec"),
            importlib.util.source_hash(solution.read_bytes()),
            checked=False,
        )
    )
    case = next(c for c in corpus_cases() if c.path.stem == "X04_mutates_its_input")
    config = run_config(case, CorpusConfig(device="cpu", out=str(tmp_path / "out")), "cpu")
    config = dataclasses.replace(config, solution=str(solution), shapes="visible")
    result = run(config, ["(test)"])[0]
    system = result["systems"][0]
    assert system["status"] == "incorrect", [(s["name"], s["status"], s.get("detail")) for s in system["shapes"]]


def test_a_shared_file_the_worker_cuts_short_reads_as_changed_not_as_a_crash(tmp_path):
    """A mapped read past a truncated file's end kills the reader (SIGBUS: red team round 3 killed the judge so).
    The judge reads through pread: the input that was cut reads as changed (X04), the mailbox as a contract
    failure."""
    from scoring.shared_tensors import InputSlots

    slots = InputSlots(torch.device("cpu"), tmp_path)
    fresh = {"a": torch.arange(8, dtype=torch.float32)}
    payload = slots.update(fresh)
    slots.fill(fresh)
    assert bool(slots.unchanged(fresh))
    os.truncate(payload["tensors"]["files"]["a"]["path"], 0)
    assert not bool(slots.unchanged(fresh))
    mailbox = OutputMailbox(tmp_path, (4,), torch.float32)
    os.truncate(mailbox.path, 2)
    with pytest.raises(DescriptorError, match="cut it short"):
        mailbox.output()


def _score_file(tmp_path, source: str) -> dict:
    import dataclasses

    from scoring.corpus.cases import corpus_cases
    from scoring.corpus.runner import CorpusConfig, run_config
    from scoring.run import run

    folder = tmp_path / "agent_run"
    folder.mkdir()
    (folder / "solution.py").write_text(source)
    case = next(c for c in corpus_cases() if c.path.stem == "X04_mutates_its_input")
    config = run_config(case, CorpusConfig(device="cpu", out=str(tmp_path / "out")), "cpu")
    config = dataclasses.replace(config, solution=str(folder / "solution.py"), shapes="visible")
    return run(config, ["(test)"])[0]["systems"][0]


def test_a_solution_that_imports_the_house_kernel_is_refused(tmp_path):
    """The repository is readable from the sandbox and on the worker's path: an agent's file that imports the
    house kernel would score it as its own. The judge refuses imports of the benchmark's own packages by
    any solution outside the repository's own solution folders."""
    system = _score_file(tmp_path, "from problems.fp8_gemm.solutions.house import run  # noqa: F401\n")
    assert system["status"] == "forbidden_op", system.get("import_detail")
    assert "benchmark's own package 'problems'" in system["import_detail"]


def test_the_house_kernel_named_in_a_string_is_refused_too(tmp_path):
    """Round 4 reached the house through pkgutil.resolve_name("problems...:run"): a dotted name of the
    benchmark's own packages in a string is an import as much as a statement is."""
    system = _score_file(
        tmp_path, 'import pkgutil\n\nrun = pkgutil.resolve_name("problems.fp8_gemm.solutions.house:run")\n'
    )
    assert system["status"] == "forbidden_op", system.get("import_detail")


def test_a_loaded_file_the_worker_names_is_never_opened_unless_a_regular_file_of_the_folder(tmp_path):
    """The worker's list of loaded files is its word: a FIFO it made under the folder would block the judge
    (round 4), a link could lead anywhere. Only regular files under the folder, outside the worker's own
    folders, are read; the rest is skipped without being opened."""
    from scoring.judge.process import audit_solution_source
    from scoring.problem import load_problem
    from scoring.spec import discover_problems

    folder = tmp_path / "run"
    scratch = folder / "scratch"
    scratch.mkdir(parents=True)
    solution = folder / "solution.py"
    solution.write_text("import torch\n\ndef run(state, a, a_scale):\n    return a\n")
    os.mkfifo(folder / "evil.py")
    (folder / "elsewhere.py").symlink_to("/etc/hostname")
    (scratch / "made_by_the_worker.py").write_text("import torch\nx = torch._scaled_mm\n")
    problem = load_problem(discover_problems()["fp8_gemm"])
    names = [
        str(folder / "evil.py"),
        str(folder / "elsewhere.py"),
        str(scratch / "made_by_the_worker.py"),
        str(folder / ".." / "outside.py"),
        7,
        None,
    ]
    assert audit_solution_source(problem, solution, names, (scratch,)) == []


@pytest.mark.parametrize(
    "source, sibling",
    [
        ("from . import _hidden\n", "_hidden.py"),  # relative (the solution can make itself a package)
        ("import importlib\nm = importlib.import_module('._hidden', 'pkg')\n", "_hidden.py"),
        ("import importlib\nm = importlib.import_module('_hïdden')\n", "_hïdden.py"),  # a Unicode module name
        ("exec(open(__file__.encode()[:-11] + b'_hidden.py').read())\n", "_hidden.py"),  # a bytes path
        ("import _linked\n", "_real/inside.py"),  # a package folder that is a link inside the folder
    ],
    ids=["relative", "relative_string", "unicode", "bytes_path", "linked_package"],
)
def test_the_audit_follows_every_constant_spelling_round_5_used(tmp_path, source, sibling):
    from scoring.import_audit import sibling_imports

    (tmp_path / "solution.py").write_text(source)
    target = tmp_path / sibling
    target.parent.mkdir(exist_ok=True)
    target.write_text("import torch\nc = torch.matmul\n")
    if sibling.startswith("_real/"):
        (tmp_path / "_linked").symlink_to(tmp_path / "_real")
    assert target.resolve() in sibling_imports(tmp_path / "solution.py", tmp_path)


def test_a_tree_too_deep_to_walk_is_refused_or_read_never_a_crash(tmp_path):
    """An honest expression of 700 terms is audited (the judge raises its recursion limit for the walk); one
    of 50,000 cannot be, and is refused as such instead of killing the judge (round 5)."""
    from scoring.import_audit import audit_files

    honest, deep = tmp_path / "honest.py", tmp_path / "deep.py"
    honest.write_text("x = " + "+".join(["0"] * 700) + "\n")
    deep.write_text("x = " + "+".join(["0"] * 50_000) + "\n")
    assert audit_files([honest], (), ("matmul",)) == []
    (finding,) = audit_files([deep], (), ("matmul",))
    assert "cannot be audited" in finding.what


def test_worker_text_prints_as_one_printable_line():
    from scoring.report import first_line

    assert first_line("RuntimeError: \x1b[1A\x1b[2Kforged\nsecond line", 200) == "RuntimeError: ?[1A?[2Kforged"


def _clock(gpu_gaps_us):
    return {"host_ms": [1.0], "gaps_us": [], "gpu_gaps_us": gpu_gaps_us, "snapshot_gaps_us": []}


def test_the_judges_gpu_clock_fails_a_shape_whose_worker_reported_less_than_it_took():
    calibration = Calibration(gpu_gaps_us=[320.0, 322.0, 318.0])
    # X10_finishes_after_done on the H200: a 259 us report, the judge's span 614 us after GO (gap 614 - 259)
    outcome, record = judge_clock_outcome(_clock([620.0, 614.0, 610.0]), calibration, 0.2588)
    assert outcome.startswith("failed (X30: the worker reported 258.8 us per call")
    assert record["excess_us"] == pytest.approx(294.0) and record["detection_limit_us"] == GPU_GAP_LIMIT_US


def test_the_judges_gpu_clock_passes_what_honest_kernels_showed_and_scales_its_limit_with_the_call():
    # The widest honest shapes on the H100 once no host step and no worker fill was in the span (2026-11-27
    # 16:34, calibrated gap 288.5 us): w4a16's prefill_m256_70b_o +4.8 us on 58 us calls, moe's olmoe_64e -2.9 us
    assert judge_clock_outcome(_clock([293.3] * 5), Calibration(gpu_gaps_us=[288.5]), 0.058)[0] == "passed"
    assert judge_clock_outcome(_clock([284.2] * 5), Calibration(gpu_gaps_us=[287.1]), 0.706)[0] == "passed"
    # the share takes over from the floor past 2 ms: a 4.7 ms kda call may run 47 us over
    outcome, record = judge_clock_outcome(_clock([330.0] * 5), Calibration(gpu_gaps_us=[287.0]), 4.73)
    assert outcome == "passed" and record["detection_limit_us"] == pytest.approx(47.3)
    # a 0.8x report on kda's 4.7 ms calls (946 us taken off) fails it
    assert judge_clock_outcome(_clock([1233.0] * 5), Calibration(gpu_gaps_us=[287.0]), 3.78)[0].startswith("failed")
    # a flat 0.8x report on w4a16's 37 us batch_m64_70b_qkv (7.4 us off) hides under the floor: the residual
    assert judge_clock_outcome(_clock([295.9] * 5), Calibration(gpu_gaps_us=[288.5]), 0.0297)[0] == "passed"
    # ... and 25 us off any call fails it
    outcome, record = judge_clock_outcome(_clock([313.5] * 5), Calibration(gpu_gaps_us=[288.5]), 0.080)
    assert outcome.startswith("failed (X30") and record["detection_limit_us"] == GPU_GAP_LIMIT_US
    # reporting more time than the judge saw only loses score: not a finding
    assert judge_clock_outcome(_clock([10.0] * 5), Calibration(gpu_gaps_us=[294.0]), 0.5)[0] == "passed"


def test_calls_whose_gate_timed_out_are_not_judged_by_the_gap():
    """Their span holds the judge's host reaction (the judge queued its wait on DONE after the call ran): the
    verdict is made on the calls whose gate held, and a shape with none was timed by the judge's span."""
    calibration = Calibration(gpu_gaps_us=[288.0])
    clock = {**_clock([290.0, 290.5, 4189.0, 461.0, 289.0]), "gate_timed_out": [0, 0, 1, 1, 0]}
    outcome, record = judge_clock_outcome(clock, calibration, 0.156)
    assert outcome == "passed" and record["excess_us"] == pytest.approx(2.0)
    assert record["gpu_gaps_us"] == [290.0, 290.5, 4189.0, 461.0, 289.0]
    every = {**_clock([900.0, 950.0]), "gate_timed_out": [1, 1]}
    outcome, _ = judge_clock_outcome(every, calibration, 0.156)
    assert outcome.startswith("passed (every timed call's gate timed out, 2 of 2")


def test_a_timed_out_call_is_charged_its_span_less_the_cheaper_regimes_gap():
    """Red team round 7: a worker that makes every gate time out is judged only by the judge's span less a gap.
    The gap is calibrated in that regime too, and the smaller of the two is subtracted: a forger can put a
    timed-out call in either regime (queue it after GO, or queue it held and say "queued" late)."""
    from types import SimpleNamespace

    from scoring.judge.cross_check import judged_when_the_gate_timed_out
    from scoring.timing import CallTiming

    forged = CallTiming(device_ms=0.6, host_ms=0.6, tail_ms=0.0, launch_ms=0.6)  # 0.6x of a 1 ms call
    timed_out = SimpleNamespace(gate_timed_out=True, gpu_span_ms=1.19)  # 1 ms call + switches of 190 us
    cheaper = Calibration(gpu_gaps_us=[289.0, 291.0], timed_out_gpu_gaps_us=[188.0, 190.0, 192.0])
    assert cheaper.timed_out_gap_us() == pytest.approx(190.0)
    assert judged_when_the_gate_timed_out(forged, timed_out, cheaper).device_ms == pytest.approx(1.0)
    # without the timed-out regime's calibration, the held gap would have left the forger 100 us a call
    held_only = Calibration(gpu_gaps_us=[289.0, 291.0])
    assert judged_when_the_gate_timed_out(forged, timed_out, held_only).device_ms == pytest.approx(0.9)
    # a dearer timed-out regime (the host's latency in it) never lowers the gap below what the held regime leaves
    dearer = Calibration(gpu_gaps_us=[289.0], timed_out_gpu_gaps_us=[350.0])
    assert dearer.timed_out_gap_us() == pytest.approx(289.0)
    # a call whose gate held keeps the worker's report: the X30 rule judges it
    held = SimpleNamespace(gate_timed_out=False, gpu_span_ms=1.19)
    assert judged_when_the_gate_timed_out(forged, held, cheaper).device_ms == pytest.approx(0.6)
    # a report longer than the judge's time stands
    slow = forged._replace(device_ms=1.5)
    assert judged_when_the_gate_timed_out(slow, timed_out, cheaper).device_ms == pytest.approx(1.5)
    every = {**_clock([900.0, 950.0]), "gate_timed_out": [1, 1]}
    outcome, _ = judge_clock_outcome(every, cheaper, 0.156)
    assert "the judge's span less 190.0 us" in outcome


def test_no_gpu_clock_is_not_verified_never_passed():
    outcome, _ = judge_clock_outcome(_clock([]), Calibration(detail="CPU profile: no judge clock"), 1.0)
    assert outcome == "not verified (CPU profile: no judge clock)"
    assert judge_clock_outcome(_clock([1.0]), Calibration(), None)[0].startswith("not verified")


def test_each_timed_calls_evidence_is_kept_beside_its_gap():
    clock = {**_clock([290.0, 291.0, 376.0]), "gate_timed_out": [0, 0, 1], "kernels_recorded": [1, 0, 0]}
    outcome, record = judge_clock_outcome(clock, Calibration(gpu_gaps_us=[290.0]), 0.1)
    assert outcome == "passed"
    assert record["gpu_gaps_us"] == [290.0, 291.0, 376.0]
    assert record["gate_timed_out"] == [0, 0, 1] and record["kernels_recorded"] == [1, 0, 0]


def test_under_the_limit_the_shape_is_charged_the_judges_time_less_the_honest_spread():
    """A report shorter than the judge's own time (span less the calibrated gap) by more than the honest spread
    is raised to it, less that spread: a forger under the X30 limit keeps at most CHARGE_TOLERANCE_US a call."""
    from scoring.judge.cross_check import CHARGE_TOLERANCE_US

    calibration = Calibration(gpu_gaps_us=[288.0])
    honest = {**_clock([292.5, 293.0, 291.0]), "timed": {1: 0.058, 2: 0.0581, 3: 0.0579}}
    outcome, record = judge_clock_outcome(honest, calibration, 0.058)
    assert outcome == "passed" and "charged_us" not in record
    assert record["judged_median_ms"] == pytest.approx(0.058 + 0.0045, abs=1e-6)
    # 15 us taken off each 80 us call: under the 20 us limit, charged back all but the spread
    forged = {**_clock([303.0] * 3), "timed": {1: 0.065, 2: 0.065, 3: 0.065}}
    outcome, record = judge_clock_outcome(forged, calibration, 0.065)
    assert outcome == "passed"
    assert record["charged_us"] == pytest.approx(15.0 - CHARGE_TOLERANCE_US)
