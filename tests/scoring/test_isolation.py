"""Whatever a solution does, the scorer classifies it per shape and keeps the other shapes' results.

The cases are the adversaries of adversarial/fp8_gemm/ (each file declares EXPECTED; see
scoring/corpus/cases.py), scored end to end on the CPU profile with the corpus runner's settings and
judged by the corpus runner's own comparison. A case the CPU profile cannot exercise says why in its
file and is listed here as skipped with that reason.
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from scoring.config import RunConfig
from scoring.corpus.cases import CORPUS_ROOT, corpus_cases
from scoring.corpus.judge import mismatches
from scoring.corpus.runner import CorpusConfig, run_config
from scoring.run import run
from scoring.seeds import mix

CASES = {case.path.stem: case for case in corpus_cases() if case.problem == "fp8_gemm"}


def score(case, out: Path, **overrides) -> dict:
    config = run_config(case, CorpusConfig(device="cpu", out=str(out)), "cpu")
    return run(RunConfig(**{**config.__dict__, **overrides}), ["(test)"])[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_solution_behaviour_is_classified(case, tmp_path):
    expected = CASES[case].expected["cpu"]
    if expected.not_exercised:
        pytest.skip(f"not exercised in the CPU profile: {expected.not_exercised}")
    result = score(CASES[case], tmp_path)
    assert mismatches(CASES[case], expected, result) == [], [
        (s["name"], s["status"], s.get("detail")) for s in result["systems"][0]["shapes"]
    ]
    statuses = expected.status if isinstance(expected.status, tuple) else (expected.status,)
    if "passed" not in statuses:  # a stated residual passes where the defence cannot reach (its EXPECTED says so)
        assert result["score"]["fraction"] == 0.0


def test_the_seed_predicting_adversary_passes_when_the_seed_leaks(tmp_path, monkeypatch):
    """X06: the adversary is real (with the run's seed in its environment it passes every shape), so its
    rejection in test_solution_behaviour_is_classified shows the seed did not reach it."""
    secret = "00112233aabbccdd"
    monkeypatch.setenv("LEAKED_SEED", str(mix(0, secret)))  # the child inherits the parent's environment
    result = score(CASES["X06_predicts_the_inputs_from_the_seed"], tmp_path, seed_secret=secret)
    assert result["status"] == "passed", [(s["name"], s.get("detail")) for s in result["systems"][0]["shapes"]]


def test_every_corpus_file_is_a_case():
    files = {p.stem for p in (CORPUS_ROOT / "fp8_gemm").glob("*.py") if not p.name.startswith("_")}
    assert files == set(CASES)


def test_a_gpu_worker_compiles_triton_even_when_the_caller_set_the_interpreter(monkeypatch):
    """CPU test modules set TRITON_INTERPRET=1 at import; GPU scoring tests in the same pytest process
    inherited it and ran the house kernels in the interpreter on GPU tensors."""
    from scoring.isolation import child_env

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert "TRITON_INTERPRET" not in child_env("cuda")
    assert child_env("cpu")["TRITON_INTERPRET"] == "1"
    monkeypatch.delenv("TRITON_INTERPRET")
    assert child_env("cpu")["TRITON_INTERPRET"] == "1"


def test_a_system_stops_after_max_timed_out_shapes(tmp_path):
    """A timeout costs shape_timeout_s and fails the system already: past the limit the rest are not run,
    and say why; the shapes before it keep their results."""
    result = score(
        CASES["robustness_hangs_on_unaligned_k"], tmp_path, shapes="visible", shape_timeout_s=5, max_timed_out_shapes=1
    )
    shapes = {s["name"]: s for s in result["systems"][0]["shapes"]}
    assert [shapes[n]["status"] for n in ("square_64", "k_unaligned_112", "decode_m4")] == [
        "passed",
        "timeout",
        "not_run",
    ]
    assert "max_timed_out_shapes=1" in shapes["decode_m4"]["detail"]
    assert result["status"] == "timeout" and result["score"]["fraction"] == 0.0


def test_a_host_side_exception_keeps_the_worker_and_a_device_error_replaces_it(tmp_path):
    """An exception raised on the host (an assert, an unsupported K) fails its shape and the same worker goes on
    (a fresh one cost 5-13 s per failing shape on an H100); a CUDA error (here by its message, as extensions
    wrap it) ends the worker, and the next shape gets a fresh one."""
    case = CASES["robustness_raises_on_decode"]
    system = score(case, tmp_path / "host")["systems"][0]
    assert [(s["name"], s["status"]) for s in system["shapes"]] == [
        ("square_64", "passed"),
        ("k_unaligned_112", "passed"),
        ("decode_m4", "runtime_error"),
    ]
    assert system["processes_started"] == 1
    device_error = tmp_path / "device_error.py"
    device_error.write_text(
        f"import sys\nsys.path.insert(0, {str(CORPUS_ROOT / 'fp8_gemm')!r})\nfrom _correct import correct\n\n\n"
        "def run(state, a, a_scale):\n    k = a.shape[1]\n    if k & (k - 1):\n"
        "        raise RuntimeError('CUDA error: an illegal memory access was encountered')\n"
        "    return correct(state, a, a_scale)\n"
    )
    system = score(case, tmp_path / "device", solution=str(device_error))["systems"][0]
    assert [(s["name"], s["status"]) for s in system["shapes"]] == [
        ("square_64", "passed"),
        ("k_unaligned_112", "runtime_error"),
        ("decode_m4", "passed"),
    ]
    assert system["processes_started"] == 2


# A stand-in for `python -m scoring.judge`: takes its order on stdin, reports on its result pipe, and, as a judge
# whose stream waits for ever on a crashed worker's DONE, never exits after saying it is leaving.
_JUDGE_THAT_HANGS_ON_ITS_WAY_OUT = """
import json, os, sys, time
sys.stdin.readline()
first = int(os.environ["FIRST_SHAPE"])
def say(**message):
    os.write(int(sys.argv[1]), (json.dumps(message) + "\\n").encode())
say(event="imported", import_ms=1.0, timer={})
say(event="shape_start", index=first)
say(event="shape_result", index=first, result={"name": "s%d" % first, "status": os.environ["STATUS"]})
if os.environ["STATUS"] == "runtime_error":
    say(event="leaving", next_index=first + 1)
    time.sleep(600)
say(event="done")
"""


class _FakeJudges:
    """STANDBY's stand-in: the first judge fails its shape and hangs after "leaving"; the next one passes."""

    def __init__(self, tmp_path):
        self.script = tmp_path / "judge.py"
        self.script.write_text(_JUDGE_THAT_HANGS_ON_ITS_WAY_OUT)
        self.started = 0

    def take(self, env, cwd):
        from scoring.standby import WorkerProcess

        status = "runtime_error" if self.started == 0 else "passed"
        judge = WorkerProcess.__new__(WorkerProcess)
        read_fd, write_fd = os.pipe()
        judge._early_output = tempfile.NamedTemporaryFile("w+b", delete=False)
        judge.proc = subprocess.Popen(
            [sys.executable, str(self.script), str(write_fd)],
            pass_fds=(write_fd,),
            stdin=subprocess.PIPE,
            env={**os.environ, "FIRST_SHAPE": str(self.started), "STATUS": status},
            start_new_session=True,
        )
        os.close(write_fd)
        judge.read_fd, judge.started, judge.ordered = read_fd, time.monotonic(), None
        self.started += 1
        return judge, False

    def prepare(self, env, cwd):
        pass


def test_a_judge_that_hangs_after_leaving_costs_the_next_shape_nothing(tmp_path, monkeypatch):
    """Issue 33's crash twin on the H100 (X32_crashes_the_gpu_after_queued): after a worker's illegal address the
    judge reported the shape and asked for a fresh process, but did not exit (its stream waited on the dead
    worker's DONE); the scorer waited shape_timeout_s and wrote the next shape down as a timeout."""
    from scoring import isolation
    from scoring.spec import Shape

    judges = _FakeJudges(tmp_path)
    monkeypatch.setattr(isolation, "STANDBY", judges)
    shapes = [Shape("s0", "visible", {}), Shape("s1", "visible", {})]
    started = time.monotonic()
    outcome = isolation.run_system(
        {"device": "cpu"}, shapes, tmp_path / "log.txt", import_timeout_s=60, shape_timeout_s=60
    )
    assert [s["status"] for s in outcome.shapes] == ["runtime_error", "passed"]
    assert outcome.processes_started == 2
    assert time.monotonic() - started < 30  # the leaving judge is killed after a short grace, not a shape timeout
