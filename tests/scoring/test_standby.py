"""Worker processes started ahead of need (scoring/standby.py): the next system's worker starts and imports
while the current one runs, and the solution finds the same process either way."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.config import RunConfig
from scoring.corpus.cases import CORPUS_ROOT
from scoring.first_worker import likely_device, start_ahead
from scoring.isolation import child_env
from scoring.run import run
from scoring.standby import STANDBY, WorkerProcess

REPO = Path(__file__).resolve().parents[2]

# Records, at import, what a solution can see of its process and its descriptors, then answers correctly.
PROBE = f"""import fcntl, json, os, sys
from pathlib import Path
sys.path.insert(0, {str(CORPUS_ROOT / 'fp8_gemm')!r})
from _correct import correct

def _seen(fd):
    return {{"target": Path(os.readlink(f"/proc/self/fd/{{fd}}")).name, "flags": fcntl.fcntl(fd, fcntl.F_GETFL)}}

print("probe imported")
# Printed, not written beside the probe: the worker's sandbox leaves only its scratch folder writable.
print("PROBE " + json.dumps({{"argv": [Path(sys.argv[0]).name, len(sys.argv)], "stdin": sys.stdin.read(),
                             "fds": [_seen(fd) for fd in (0, 1, 2)], "cwd": os.getcwd(),
                             "environment": sorted(os.environ)}}), flush=True)


def run(state, a, a_scale):
    return correct(state, a, a_scale)
"""


def _score_cpu(solution: Path, out: Path, **overrides) -> dict:
    config = RunConfig(
        problem="fp8_gemm",
        solution=str(solution),
        device="cpu",
        lines="none",
        shapes="visible",
        audits=False,
        check_seeds=1,
        min_calls=2,
        max_calls=3,
        warmup_s=0.0,
        progress=False,
        out=str(out),
        **overrides,
    )
    return run(config, ["(test)"])[0]


def test_the_solution_sees_the_same_process_whether_its_worker_was_started_ahead_or_not(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    STANDBY.close()  # nothing waiting: the first run's worker is started for it
    first = _score_cpu(probe, tmp_path / "first")["systems"][0]
    assert not STANDBY.waiting()  # no later system in that run: no worker was started ahead for nothing
    STANDBY.prepare(child_env("cpu"), REPO)  # as the system before it would have
    second = _score_cpu(probe, tmp_path / "second")["systems"][0]
    assert first["status"] == second["status"] == "passed"
    assert first["processes"][0]["started_ahead_s"] == 0.0
    assert second["processes"][0]["started_ahead_s"] > 0.0
    fresh, ahead = [
        json.loads(line[len("PROBE ") :])
        for run_dir in ("first", "second")
        for line in next((tmp_path / run_dir / "cpu").glob("*.logs/probe.log")).read_text().splitlines()
        if line.startswith("PROBE ")
    ]
    assert fresh == ahead
    assert fresh["stdin"] == "" and fresh["fds"][0]["target"] == "null"
    assert fresh["fds"][1]["target"] == fresh["fds"][2]["target"] == "probe.log"
    log = (tmp_path / "second" / "cpu").glob("*.logs/probe.log")
    text = next(log).read_text()
    assert "started ahead" in text and "probe imported" in text  # the solution's output reached its log


def test_a_run_starts_its_workers_ahead_unless_told_not_to(tmp_path):
    def processes(prestart: str) -> list[list[dict]]:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "scoring.run",
                "problem=softmax",
                "device=cpu",
                "lines=eager",
                "audits=false",
                "shapes=visible",
                "check_seeds=1",
                "min_calls=2",
                "max_calls=3",
                "warmup_s=0",
                "progress=false",
                f"prestart={prestart}",
                f"out={tmp_path / prestart}",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
        )
        path = [line[len("result: ") :] for line in done.stdout.splitlines() if line.startswith("result: ")][-1]
        return [system["processes"] for system in json.loads(Path(path.strip()).read_text())["systems"]]

    # The house's worker was started before the scorer imported torch (scoring/first_worker.py), the eager
    # line's while the house ran; the last line starts none.
    (house,), (eager,) = processes("true")
    assert house["started_ahead_s"] > 0.0 and eager["started_ahead_s"] > 0.0
    assert all(p["started_ahead_s"] == 0.0 for system in processes("false") for p in system)


def test_a_waiting_worker_leaves_when_its_supervisor_closes_the_order_pipe():
    worker = WorkerProcess(child_env("cpu"), REPO)
    worker.proc.stdin.close()
    assert worker.proc.wait(timeout=120) == 0
    worker.discard()


def test_a_worker_started_for_another_environment_is_not_taken(monkeypatch):
    STANDBY.close()
    STANDBY.prepare(child_env("cpu"), REPO)
    monkeypatch.setenv("CEILING_TEST_OTHER_ENVIRONMENT", "1")
    worker, started_ahead = STANDBY.take(child_env("cpu"), REPO)
    try:
        assert not started_ahead and worker.env["CEILING_TEST_OTHER_ENVIRONMENT"] == "1"
    finally:
        worker.discard()


def _env_with(tmp_path: Path, module: str, text: str) -> dict[str, str]:
    """The worker's environment with a module of ours first on its path."""
    (tmp_path / f"{module}.py").write_text(text)
    env = child_env("cpu")
    env["PYTHONPATH"] = str(tmp_path) + os.pathsep + env["PYTHONPATH"]
    return env


def test_what_a_worker_prints_before_its_order_reaches_the_systems_log(tmp_path):
    env = _env_with(tmp_path, "sitecustomize", "print('printed at interpreter start')\n")
    worker = WorkerProcess(env, REPO)
    log_path = tmp_path / "system.log"
    worker.give(str(tmp_path / "no-such-task.json"), log_path)  # it moves its output, then fails on the task
    assert worker.proc.wait(timeout=120) != 0
    with open(log_path, "ab") as log:
        worker.keep_early_output(log)
    worker.discard()
    text = log_path.read_text()
    assert text.index("printed at interpreter start") < text.index("no-such-task.json")


def test_a_worker_that_dies_before_its_order_leaves_its_output_in_the_log(tmp_path):
    env = _env_with(tmp_path, "torch", "raise ImportError('a torch broken for this test')\n")
    worker = WorkerProcess(env, REPO)
    assert worker.proc.wait(timeout=120) != 0
    log = io.BytesIO()
    worker.keep_early_output(log)
    worker.discard()
    assert b"a torch broken for this test" in log.getvalue()


@pytest.mark.parametrize(
    "argv,started",
    [
        (["problem=softmax", "device=cpu"], True),
        (["softmax", "device=cpu"], True),
        (["problem=softmax", "device=cpu", "prestart=false"], False),
        (["help"], False),
        (["list"], False),
        ([], False),
        (["problem=softmax", "device=cpu", "min_calls=9", "max_calls=3"], False),  # malformed: main reports it
    ],
)
def test_the_first_worker_starts_only_for_a_run_that_prestarts(argv, started):
    STANDBY.close()
    try:
        assert start_ahead(argv) is started and STANDBY.waiting() is started
        if started:  # the worker the run will ask for: same environment, so it is taken
            worker, started_ahead = STANDBY.take(child_env("cpu"), REPO)
            assert started_ahead
            worker.discard()
    finally:
        STANDBY.close()


def test_auto_is_guessed_from_the_driver_nodes_without_torch(monkeypatch):
    monkeypatch.setattr("scoring.first_worker.os.path.exists", lambda path: path == "/dev/nvidiactl")
    assert likely_device("auto") == "cuda" and likely_device("cpu") == "cpu" and likely_device("cuda:1") == "cuda:1"
    monkeypatch.setattr("scoring.first_worker.os.path.exists", lambda path: False)
    assert likely_device("auto") == "cpu"
