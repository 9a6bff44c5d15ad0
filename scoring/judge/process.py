"""The judge process: `python -m scoring.judge RESULT_FD`, its order on stdin.

The scorer (scoring/isolation.py) starts one for each solution, ahead of need where it can
(scoring/standby.py), and a fresh one after a shape whose worker could not go on. Messages to the scorer
go as JSON lines on RESULT_FD, a pipe only this process holds: the worker, in its own namespaces, never
sees it (X14). This process starts the worker, calibrates its clock against it, has it import the
solution, and scores the shapes (scoring/judge/shapes.py).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
import traceback
from pathlib import Path

from scoring import interpreter_fixes
from scoring.import_audit import audit_files, repository_imports, sibling_imports
from scoring.judge.link import SolutionFailed, WorkerLink, WorkerLost
from scoring.judge.messages import MAX_DETAIL_CHARS
from scoring.judge.shapes import ShapeJudge
from scoring.problem import load_problem
from scoring.spec import Shape
from scoring.wire import send

EXIT_FRESH_PROCESS_NEEDED = 3
REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def receive_order() -> Path:
    """Wait on stdin for the supervisor's order (a judge may be started ahead of need); then what was
    printed before it moves into the system's log, stdin is /dev/null and stdout and stderr append to it."""
    line = sys.stdin.buffer.readline()
    if not line:
        sys.exit(0)
    order = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    log_fd = os.open(order["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    early = Path(order["early_output"])
    os.write(log_fd, early.read_bytes())
    early.unlink()
    null_fd = os.open(os.devnull, os.O_RDONLY)
    for target, source in ((0, null_fd), (1, log_fd), (2, log_fd)):
        os.dup2(source, target)
    os.close(log_fd)
    os.close(null_fd)
    return Path(order["task"])


def _unfinished(raw: dict, status: str, detail: str) -> dict:
    return {
        "name": raw["name"],
        "shape_set": raw["shape_set"],
        "params": dict(raw["params"]),
        "status": status,
        "detail": detail,
    }


def printable_line(text, limit: int = 200) -> str | None:
    """A worker's text as one printable line (no terminal escapes reach the scorer's report), bounded."""
    if text is None:
        return None
    line = "".join(ch if ch.isprintable() else "?" for ch in str(text))
    return line[:limit]


def audit_solution_source(
    problem, solution_path: Path, loaded_files, worker_folders: tuple[Path, ...] = ()
) -> list[str]:
    """The syntax-tree audit (X21), in the judge: the solution's own file and the modules of its folder it
    imports or names, whatever the worker says; then the files of the folder the worker says it loaded. Those
    names are the worker's: taken only as plain strings under the folder, outside the folders the worker
    writes (its scratch, its cache), for regular files (never a link, a FIFO or a device), never resolved."""
    folder = solution_path.parent.resolve()
    try:
        files = {solution_path.resolve(), *sibling_imports(solution_path, folder)}
    except Exception as exc:  # noqa: BLE001 -- a source the judge cannot read through is refused, never a crash
        return [f"the solution's source cannot be audited: {type(exc).__name__}: {str(exc)[:200]}"]
    for name in loaded_files if isinstance(loaded_files, list) else []:
        if not (isinstance(name, str) and name.endswith(".py") and name.startswith(f"{folder}{os.sep}")):
            continue
        path = Path(name)
        if ".." in path.parts or any(path.is_relative_to(worker) for worker in worker_folders):
            continue
        # No link anywhere below the folder (a linked folder led the judge to a file the worker wrote).
        parts = path.relative_to(folder).parts
        steps = [folder.joinpath(*parts[:n]) for n in range(1, len(parts) + 1)]
        try:
            if all(not stat.S_ISLNK(os.lstat(step).st_mode) for step in steps) and stat.S_ISREG(os.lstat(path).st_mode):
                files.add(path)
        except OSError:
            continue
    try:
        findings = audit_files(
            sorted(files), problem.spec.forbidden_imports, tuple(sorted(set(problem.spec.forbidden_ops))), root=folder
        )
        if not any(folder.is_relative_to(REPO_ROOT / own) for own in ("problems", "adversarial")):
            findings += repository_imports(sorted(files), folder)  # the repository's own solutions may share code
    except Exception as exc:  # noqa: BLE001 -- a source the judge cannot read through is refused, never a crash
        return [f"the solution's source cannot be audited: {type(exc).__name__}: {str(exc)[:200]}"]
    return [str(finding) for finding in findings]


def _leaving(result_fd: int, index: int) -> int:
    """Say that a fresh process takes the shapes after `index`: this one may not end cleanly (its stream can
    wait for ever on the DONE of a worker that crashed), and the scorer must not blame the next shape for it."""
    send(result_fd, "leaving", next_index=index + 1)
    return EXIT_FRESH_PROCESS_NEEDED


def main(argv: list[str]) -> int:
    task_path = receive_order()
    startup_s: dict[str, float] = {}
    step_start = time.perf_counter()

    def step_done(name: str) -> None:
        nonlocal step_start
        now = time.perf_counter()
        startup_s[name] = now - step_start
        step_start = now

    interpreter_fixes.apply()
    task = json.loads(task_path.read_text())
    task_path.unlink()  # the mixed seed is in it
    result_fd = int(argv[0])
    import torch

    device = torch.device(task["device"])
    if device.type == "cuda":
        torch.cuda.set_device(device)
    problem = load_problem(task["problem_dir"])
    env = {name: os.environ[name] for name in task.get("environment_names") or os.environ if name in os.environ}
    link = WorkerLink(device, env, REPO_ROOT)
    try:
        code = _run(task, problem, link, result_fd, startup_s, step_done)
    finally:
        link.close()
    if code == EXIT_FRESH_PROCESS_NEEDED:
        # After a worker crashed in its call, this process's stream may wait for ever on the dead worker's DONE,
        # and CUDA's teardown at the interpreter's exit would wait with it: the scorer has every word it needs.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _run(task, problem, link: WorkerLink, result_fd: int, startup_s: dict, step_done) -> int:
    solution_path = Path(task["solution_path"])
    worker_task = {key: task[key] for key in ("problem_dir", "solution_path", "device", "enforce_forbidden", "watch")}
    worker_task["environment_names"] = task.get("environment_names")
    try:
        ready = link.start(worker_task, solution_path, task["l2_bytes"])
        step_done("worker_start")
        # The worker's own steps are parts of its start; what is left is the sandbox and the interpreter.
        worker_steps = {name: float(seconds) for name, seconds in (ready.get("startup_s") or {}).items()}
        startup_s["worker_start"] = max(0.0, startup_s["worker_start"] - sum(worker_steps.values()))
        startup_s.update(worker_steps)
        calibration = link.calibrate()
        step_done("judge_clock_calibration")
        link.order("import")
        imported = link.expect("imported", "import_failed", timeout_s=task.get("import_timeout_s", 600))
    except (WorkerLost, SolutionFailed) as exc:
        send(result_fd, "import_failed", status="import_error", detail=f"the worker did not start: {exc.detail}")
        return 0
    except Exception as exc:  # noqa: BLE001 -- the judge's own failure, said in the result
        send(
            result_fd,
            "import_failed",
            status="import_error",
            detail="the judge failed to start its worker: " + "".join(traceback.format_exception(exc)[-4:]),
        )
        return 0
    if imported["event"] == "import_failed":
        send(
            result_fd,
            "import_failed",
            status=imported["status"],  # one of IMPORT_FAILURE_STATUSES (link.expect)
            detail=str(imported.get("detail", ""))[:MAX_DETAIL_CHARS],
        )
        return 0
    if task["enforce_forbidden"]:
        findings = audit_solution_source(
            problem, solution_path, imported.get("loaded_files"), (link.scratch, *link.worker_cache_folders())
        )
        if findings:
            send(result_fd, "import_failed", status="forbidden_op", detail="X21: " + "; ".join(findings[:5]))
            return 0
    step_done("solution_import")
    timer = dict(ready.get("timer") or {}, **(link.clock.describe() if link.clock else {}))
    timer["judge_clock_calibration"] = calibration.as_dict()
    timer["sandbox"] = ready.get("sandbox") or {"outcome": f"none ({link.sandbox_why_not})"}
    send(
        result_fd,
        "imported",
        import_ms=imported["import_ms"],
        startup_s=startup_s,
        timer=timer,
        kernel_record=link.kernel_record_note() or ready.get("kernel_record"),
        library_version=printable_line(imported.get("library_version")),
    )
    task = dict(task, idle_tail_ms=calibration.idle_tail_ms())
    judge = ShapeJudge(task, problem, link, calibration)
    for offset, raw in enumerate(task["shapes"]):
        index = task["first_index"] + offset
        shape = Shape(raw["name"], raw["shape_set"], raw["params"])
        send(result_fd, "shape_start", index=index)
        try:
            result = judge.score_shape(shape)
        except SolutionFailed as failed:
            send(result_fd, "shape_result", index=index, result=_unfinished(raw, failed.status, failed.detail))
            if failed.fresh:
                return _leaving(result_fd, index)
            continue
        except WorkerLost as lost:
            send(result_fd, "shape_result", index=index, result=_unfinished(raw, lost.status, lost.detail))
            return _leaving(result_fd, index)
        except Exception as exc:  # noqa: BLE001 -- the judge's own failure: said, never a hang
            detail = "the judge failed: " + "".join(traceback.format_exception(exc)[-4:])
            send(result_fd, "shape_result", index=index, result=_unfinished(raw, "runtime_error", detail))
            return _leaving(result_fd, index)
        send(result_fd, "shape_result", index=index, result=result)
    send(result_fd, "done")
    return 0
