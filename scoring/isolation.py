"""Run one solution in child processes, surviving whatever it does.

The parent gives a `python -m scoring.judge` process (started for it, or ahead of it: scoring/standby.py)
its order: the task, a private pipe for results, and the log file for the solution's output. It enforces
an import deadline and a per-shape deadline (killing the whole process group), and turns every way a child
can end into a classified per-shape status: a crash, a CUDA error or an early exit ends only the shape in
flight; the next shapes run in a fresh child. (An exception the solution raises on the host fails its shape
inside the child, which goes on: scoring/worker/failures.py.)
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from scoring import sandbox
from scoring.spec import Shape
from scoring.standby import STANDBY, kill_group

REPO_ROOT = Path(__file__).resolve().parent.parent
LOG_TAIL_BYTES = 4000


@dataclass
class SystemOutcome:
    shapes: list[dict]
    import_status: str = "ok"  # "ok", "import_error", "forbidden_op", "integrity", "timeout"
    import_detail: str = ""
    import_ms: float | None = None
    timer: dict = field(default_factory=dict)
    kernel_record: dict = field(default_factory=dict)  # the worker's CUPTI record: tool, or why not
    library_version: str | None = None
    processes_started: int = 0
    # One entry per worker process: the shape it started at, seconds from spawn to "imported" (interpreter,
    # scorer imports, the worker's start-up steps in worker_startup_s, the solution's import) and to its exit.
    processes: list[dict] = field(default_factory=list)
    log_tail: str = ""


def _log_tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - LOG_TAIL_BYTES))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def child_env(device: str) -> dict[str, str]:
    """The environment of a process that runs solution code (a worker, or an audit's ncu target)."""
    env = dict(os.environ)
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"  # Triton kernels run in its interpreter in the CPU profile
    else:  # a GPU run compiles Triton kernels, whatever the caller's environment says (a CPU test module
        env.pop("TRITON_INTERPRET", None)  # sets it at import; GPU tests in the same pytest run inherited it)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _unfinished(shape: Shape, status: str, detail: str) -> dict:
    return {
        "name": shape.name,
        "shape_set": shape.shape_set,
        "params": dict(shape.params),
        "status": status,
        "detail": detail,
    }


def outcome_without_a_worker(shapes: list[Shape], import_status: str, import_detail: str) -> SystemOutcome:
    """A system whose file the parent refused before starting a worker (scoring/solution_file.py): recorded
    as a worker's failed import is, every shape carrying the import status and detail."""
    return SystemOutcome(
        shapes=[_unfinished(s, import_status, import_detail) for s in shapes],
        import_status=import_status,
        import_detail=import_detail,
    )


def run_system(
    base_task: dict,
    shapes: list[Shape],
    log_path: Path,
    *,
    import_timeout_s: float,
    shape_timeout_s: float,
    on_progress: Callable[[int, dict], None] = lambda i, r: None,
    max_timed_out_shapes: int = 0,
    prestart: bool = False,
) -> SystemOutcome:
    """Score `shapes` for the solution named in base_task; never raises for anything the solution does.

    After `max_timed_out_shapes` shapes ran out of time (0: no limit) the rest are not run: each timeout costs
    shape_timeout_s, and the system has already failed (a score needs every shape to pass). Each process is
    one started ahead, if one is waiting (scoring/standby.py), else started now; with `prestart` the next one
    is started once this system's has imported, for a later system or a fresh process after a crash."""
    outcome = SystemOutcome(shapes=[None] * len(shapes))  # type: ignore[list-item]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    next_index = 0
    not_run_detail = "not run"
    with open(log_path, "ab") as log:
        while next_index < len(shapes):
            task = dict(
                base_task,
                first_index=next_index,
                shapes=[
                    {"name": s.name, "shape_set": s.shape_set, "params": dict(s.params)} for s in shapes[next_index:]
                ],
            )
            next_index = _run_worker_from(
                task,
                shapes,
                next_index,
                log,
                log_path,
                outcome,
                import_timeout_s,
                shape_timeout_s,
                on_progress,
                prestart,
            )
            if outcome.import_status != "ok":
                break
            timed_out = sum(1 for s in outcome.shapes if s is not None and s["status"] == "timeout")
            if max_timed_out_shapes and timed_out >= max_timed_out_shapes and next_index < len(shapes):
                shapes_word = "shape" if timed_out == 1 else "shapes"
                not_run_detail = (
                    f"not run: {timed_out} {shapes_word} had already run out of time "
                    f"(max_timed_out_shapes={max_timed_out_shapes}; 0 runs every shape)"
                )
                log.write(f"\n=== stopped: {not_run_detail} ===\n".encode())
                break
    outcome.log_tail = _log_tail(log_path)
    for i, shape in enumerate(shapes):
        if outcome.shapes[i] is None:
            status = outcome.import_status if outcome.import_status != "ok" else "not_run"
            outcome.shapes[i] = _unfinished(shape, status, outcome.import_detail or not_run_detail)
    return outcome


def _run_worker_from(
    task: dict,
    shapes: list[Shape],
    first: int,
    log,
    log_path: Path,
    outcome: SystemOutcome,
    import_timeout_s: float,
    shape_timeout_s: float,
    on_progress,
    prestart: bool,
) -> int:
    """Run one child from shape `first`; return the index the next child should start at."""
    env = child_env(task["device"])
    # Every worker reduces os.environ to these names before the solution is imported, so variables a
    # profiler or launcher added around the scorer do not reach it (scoring/worker/server.py, scrub_environment).
    task = dict(task, environment_names=sorted(env))
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="ceiling-task-", delete=False) as f:
        json.dump(task, f)
        task_path = f.name
    worker, started_ahead = STANDBY.take(env, REPO_ROOT)
    log.write(
        f"\n=== worker start at shape {first} ({time.strftime('%H:%M:%S')}"
        f"{', started ahead' if started_ahead else ''}) ===\n".encode()
    )
    log.flush()
    # Read before the order is given: a judge started ahead begins its own step clock on receiving it, and on a
    # loaded machine this process can be descheduled between giving the order and reading the clock (the
    # judge's steps then summed 4 ms over spawn_to_imported_s).
    ordered = time.monotonic()
    worker.give(task_path, log_path)
    proc, read_fd = worker.proc, worker.read_fd
    outcome.processes_started += 1
    # spawn_to_imported_s: from the order (what the run waits for); started_ahead_s: how long the process had
    # been started and imported before it (scoring/standby.py), 0 for one started for this order.
    process = {
        "first_shape": first,
        "spawn_to_imported_s": None,
        "worker_startup_s": None,
        "lifetime_s": None,
        "started_ahead_s": round(worker.waited_s(), 3) if started_ahead else 0.0,
    }
    outcome.processes.append(process)
    selector = selectors.DefaultSelector()
    selector.register(read_fd, selectors.EVENT_READ)
    buffer = b""
    imported = False
    in_flight: int | None = None
    deadline = time.monotonic() + import_timeout_s
    next_index = first
    finished = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                kill_group(proc)
                if not imported:
                    outcome.import_status, outcome.import_detail = "timeout", f"import took over {import_timeout_s:g} s"
                    return len(shapes)
                index = in_flight if in_flight is not None else next_index
                outcome.shapes[index] = _unfinished(
                    shapes[index], "timeout", f"no result within {shape_timeout_s:g} s; process group killed"
                )
                on_progress(index, outcome.shapes[index])
                return index + 1
            if not selector.select(timeout=min(remaining, 1.0)):
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break  # the child closed the pipe: it exited
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                    event = message["event"]
                except (ValueError, KeyError, TypeError):
                    kill_group(proc)
                    index = in_flight if in_flight is not None else next_index
                    if index < len(shapes):
                        outcome.shapes[index] = _unfinished(
                            shapes[index], "integrity", "X14: malformed message on the result channel"
                        )
                    return index + 1
                if event == "imported":
                    imported = True
                    process["spawn_to_imported_s"] = time.monotonic() - ordered
                    if prestart:  # the next worker starts and imports while this one times its shapes
                        STANDBY.prepare(env, REPO_ROOT)
                    process["worker_startup_s"] = message.get("startup_s")
                    outcome.import_ms = message["import_ms"]
                    outcome.timer = message["timer"]
                    outcome.kernel_record = message.get("kernel_record") or {}
                    outcome.library_version = message.get("library_version")
                    deadline = time.monotonic() + shape_timeout_s
                elif event == "import_failed":
                    outcome.import_status, outcome.import_detail = message["status"], message["detail"]
                    finished = True
                elif event == "shape_start":
                    in_flight = message["index"]
                    deadline = time.monotonic() + shape_timeout_s
                elif event == "shape_result":
                    outcome.shapes[message["index"]] = message["result"]
                    on_progress(message["index"], message["result"])
                    in_flight = None
                    next_index = message["index"] + 1
                elif event == "leaving":  # a fresh process takes the next shape; this one may hang on its way out
                    next_index = int(message["next_index"])
                    finished = True
                elif event == "done":
                    finished = True
            if finished:
                break  # the judge's word is in: a process that lingers after it is killed below
    finally:
        selector.close()
        os.close(read_fd)
        returncode = _wait(proc, 30 if not finished else 5)
        worker.keep_early_output(log)
        process["lifetime_s"] = time.monotonic() - ordered
        Path(task_path).unlink(missing_ok=True)  # the worker removes it on start; not if it died first
        remove_scratch_of(proc.pid)
    if finished:
        return len(shapes) if outcome.import_status != "ok" else next_index
    how = f"exit code {returncode}" if returncode >= 0 else f"killed by {_signal_name(returncode)}"
    if not imported:
        outcome.import_status = "import_error"
        outcome.import_detail = f"the process ended during import ({how}) without reporting; see the log"
        return len(shapes)
    if in_flight is not None:
        early = " before reporting a result (X14: early exit)" if returncode == 0 else ""
        outcome.shapes[in_flight] = _unfinished(shapes[in_flight], "runtime_error", f"process ended ({how}){early}")
        on_progress(in_flight, outcome.shapes[in_flight])
        return in_flight + 1
    if next_index == first and first < len(shapes):  # died between shapes: never retry the same start forever
        outcome.shapes[first] = _unfinished(shapes[first], "runtime_error", f"process ended ({how}) before the shape")
        return first + 1
    return next_index


def remove_scratch_of(judge_pid: int) -> None:
    """A judge removes its worker's scratch folder when it closes; one that was killed cannot."""
    for folder in Path(tempfile.gettempdir()).glob(sandbox.scratch_prefix(judge_pid) + "*"):
        shutil.rmtree(folder, ignore_errors=True)


def _wait(proc: subprocess.Popen, timeout_s: float) -> int:
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return proc.wait()
