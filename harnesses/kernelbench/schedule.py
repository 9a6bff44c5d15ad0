"""Scoring the imported folders: one `python -m scoring.run` per folder, shared out among GPUs, under a deadline.

A run already scored for the same agent file and adapter is skipped; each folder's scorer is pinned to one GPU
with CUDA_VISIBLE_DEVICES; with a deadline (a lent GPU's call limit), a run starts only if its problem's median
run so far fits in what is left, and a run still going at the deadline is killed with every process it started.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harnesses.executors import local_gpus
from harnesses.kernelbench.catalog import RESCORED_FROM
from harnesses.kernelbench.cutlass_offer import offer_cutlass
from scoring.options import OptionError, with_overrides

if TYPE_CHECKING:
    from harnesses.import_kernelbench import ImportConfig

REPO_ROOT = Path(__file__).resolve().parents[2]


def existing_result(results: Path, source_sha256: str, adapter_sha256: str) -> Path | None:
    """A result already written for this agent file and this adapter."""
    for path in sorted(results.glob("*/*.json")):
        try:
            agent = json.loads(path.read_text()).get("agent") or {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            continue
        if (
            isinstance(agent, dict)
            and (agent.get("source") or {}).get("sha256") == source_sha256
            and (agent.get("adapter") or {}).get("sha256") == adapter_sha256
        ):
            return path
    return None


@dataclass(frozen=True)
class GpuSlot:
    """One GPU the runs are shared out to: its index on this host and how many share the work."""

    index: str
    of: int


def score_folder(
    config: ImportConfig, folder: Path, problem: str, limit_s: float | None = None, gpu: GpuSlot | None = None
) -> tuple[int, str]:
    """Score one folder in a fresh process; (exit code, the result path or why there is none). The scorer's
    output goes to <folder>/score.log as it is written, so a run cut off (limit_s, or the caller's own limit)
    leaves what it did; past limit_s the scorer and its workers are killed. With `gpu` the scorer sees that
    GPU alone (CUDA_VISIBLE_DEVICES): the agents' files allocate on `cuda`, whatever device we name."""
    out = Path(config.results).resolve()
    defaults = ["lines=none", f"device={config.device}", f"import_timeout_s={config.import_timeout_s:g}"]
    env = dict(os.environ)
    if gpu:
        env["CUDA_VISIBLE_DEVICES"] = gpu.index
    # The scorer's worker runs in a sandbox (scoring/sandbox.py) where every file system is read-only but its
    # scratch and its compile-cache folder, and their builds write beside their file (<folder>/build) or into
    # TORCH_EXTENSIONS_DIR: in the imported folder both failed, and a file that "silently falls back" ran its
    # Triton path again. So the scorer is given a copy of the folder that is the worker's cache folder itself.
    workspace = writable_copy(config, folder)
    env["CEILING_WORKER_CACHE"] = str(workspace.parent)
    # Extensions the agents build are kept in their folder's copy, not in the user's home cache.
    env["TORCH_EXTENSIONS_DIR"] = str(workspace / "torch_extensions")
    # Made here: torch creates its default folder itself, but some agents' builds write into the named one
    # directly (a lock file), and an absent folder failed their import for a reason of ours.
    Path(env["TORCH_EXTENSIONS_DIR"]).mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable,
        "-m",
        "scoring.run",
        f"problem={problem}",
        f"solution={workspace / 'solution.py'}",
        f"agent={workspace / 'agent.json'}",
        f"out={out}",
        *with_overrides(defaults, config.score_args.split()),
    ]
    agent_file = folder / "agent.json"
    agent = json.loads(agent_file.read_text())
    agent["environment"] = (
        offer_cutlass(Path(config.cutlass), workspace, env) if config.cutlass else {"cutlass": "none offered"}
    )
    agent["environment"]["workspace"] = (
        "a writable copy of the run folder, the sandboxed worker's cache folder: their builds write beside their file"
    )
    if gpu and gpu.of > 1:  # a reader comparing runs should know the host scored others meanwhile
        agent["environment"]["gpu"] = (
            f"GPU {gpu.index} of {gpu.of} on this host scoring at once, one run each (CUDA_VISIBLE_DEVICES)"
        )
    for path in (agent_file, workspace / "agent.json"):
        path.write_text(json.dumps(agent, indent=1, sort_keys=True) + "\n")
    log_path = folder / "score.log"
    started = time.monotonic()
    with open(log_path, "w") as log:
        log.write(f"$ {' '.join(argv)}\n")
        log.flush()
        proc = subprocess.Popen(argv, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            returncode = proc.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            kill_tree(proc.pid)
            proc.wait()
            ran_s = time.monotonic() - started
            # Remembered (the longest cut so far) so that the next call starts this run first, with the time it
            # is known to need.
            longest_s = max(ran_s, cut_off_s(folder))
            (folder / CUT_OFF_FILE).write_text(json.dumps({"ran_s": round(longest_s, 1)}) + "\n")
            return proc.returncode, (
                f"not scored: cut off after {ran_s:.0f} s (the deadline); its output so far: {log_path}"
            )
    output = log_path.read_text(errors="replace")
    lines = [line for line in output.splitlines() if line.startswith("result: ")]
    if not lines:
        tail = (output.strip().splitlines() or ["no output"])[-1]
        return returncode, f"not scored: {tail}"
    return returncode, lines[-1][len("result: ") :].strip()


WORKSPACES = "workspaces"  # under out=: per run, the folder its worker may write (writable_copy)


def writable_copy(config: ImportConfig, folder: Path) -> Path:
    """A fresh copy of a run folder at <out>/workspaces/<run folder name>/<digest>/, where <digest> names the
    sandboxed worker's compile-cache folder for this solution file (scoring/sandbox.py, cache_folder: the
    first 16 hex digits of the file's sha256 under CEILING_WORKER_CACHE), the one folder besides its scratch
    that the worker may write. Their files then find what they build beside themselves, as in their workspace.
    The folder may rewrite its own files there (the judge's audit leaves the files of a worker-writable
    folder to the syntax tree of the solution and the modules it imports): these are published files re-scored,
    not adversaries. The imported folder is left as it was (its score.log and cut_off.json are written there)."""
    digest = hashlib.sha256((folder / "solution.py").read_bytes()).hexdigest()[:16]
    root = Path(config.out).resolve() / WORKSPACES / folder.name
    shutil.rmtree(root, ignore_errors=True)  # a rescore builds from the published files again
    workspace = root / digest
    shutil.copytree(
        folder,
        workspace,
        symlinks=True,
        ignore=shutil.ignore_patterns("score.log", CUT_OFF_FILE, "build", "__pycache__"),
    )
    return workspace


def kill_tree(pid: int) -> None:
    """SIGKILL a process and every descendant. The scorer starts each worker in its own session (so a
    shape's timeout can kill that worker's group): killing the scorer's group alone would leave them holding
    the GPU. Linux: children found through /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # exited meanwhile
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    doomed, todo = [], [pid]
    while todo:
        current = todo.pop()
        doomed.append(current)
        todo.extend(children.get(current, []))
    for victim in doomed:
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass


# A run's expected length from the problem's median run: a margin for run-to-run spread, and the scorer
# process's own start (hardware probe, imports) which a result's wall_s leaves out. The median, not the longest:
# since a run past the deadline is killed, a wrong guess costs the time it ran; the longest (one file's 195 s
# timeout among kda's 60-170 s runs) left 212 s of a call unused.
RUN_MARGIN, RUN_START_S = 1.25, 15.0
CUT_OFF_FILE = "cut_off.json"  # in a run's folder: how long it ran before a deadline cut it off


def run_times_s(results: Path) -> dict[str, list[float]]:
    """Per problem, the wall_s of each re-scored file's scoring recorded under `results`."""
    times: dict[str, list[float]] = {}
    for path in results.glob("*/*.json"):
        try:
            data = json.loads(path.read_text())
            if (data.get("agent") or {}).get("rescored_from") != RESCORED_FROM:
                continue
            problem, wall_s = data["problem"]["name"], float(data["systems"][0]["wall_s"])
        except (
            OSError,
            UnicodeDecodeError,
            json.JSONDecodeError,
            AttributeError,
            KeyError,
            IndexError,
            TypeError,
            ValueError,
        ):
            continue
        times.setdefault(problem, []).append(wall_s)
    return times


def gpu_slots(config: ImportConfig) -> list[GpuSlot | None]:
    """Where runs go at once: one slot per GPU of gpus=, or a single unpinned slot (device= alone)."""
    indices = local_gpus(config.gpus) if config.gpus else []
    if indices and config.device not in ("auto", "cuda"):
        raise OptionError(
            f"gpus={config.gpus} with device={config.device}: each scorer is pinned to one GPU, "
            "which it sees as cuda; leave device=auto or give device=cuda"
        )
    return [GpuSlot(index, len(indices)) for index in indices] or [None]


def expected_run_s(config: ImportConfig, times: dict[str, list[float]], entry: dict) -> float:
    """A run's expected seconds: its problem's median run so far (with the margin), and, for a run cut off at an
    earlier deadline, that much more than it ran then (a file building a large extension, say, runs far past
    its problem's median; guessed at the median alone it would start late and be cut off again)."""
    seen = times.get(entry["problem"])
    expected_s = RUN_MARGIN * (statistics.median(seen) if seen else config.unknown_run_s) + RUN_START_S
    return cut_off_s(Path(config.out) / entry["folder"]) + expected_s


def cut_off_s(folder: Path) -> float:
    """How long the run of this folder ran before a deadline cut it off (the longest such cut); 0 if never."""
    try:
        return float(json.loads((folder / CUT_OFF_FILE).read_text())["ran_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def score_runs(config: ImportConfig, entries: list[dict], echo=print) -> int:
    """Score the folders not scored before, one at a time on each GPU slot; 0 when every one was scored or
    skipped as done, 1 when some could not be."""
    slots, results, pending = gpu_slots(config), Path(config.results), []
    for entry in entries:
        done = None if config.rescore else existing_result(results, *_shas(Path(config.out) / entry["folder"]))
        if done:
            echo(f"{entry['problem']:<16} {entry['run_id']:<62} already scored: {done}", flush=True)
        else:
            pending.append(entry)
    times = run_times_s(results)
    # Longest expected first (stable): with several GPUs, a long run left for last would keep one GPU busy
    # while the others idle, and under a deadline it is the run most likely not to fit.
    pending.sort(key=lambda entry: -expected_run_s(config, times, entry))
    lock, todo, started, unscored = threading.Lock(), iter(pending), time.monotonic(), []

    def next_run(where: str) -> dict | None:
        """The next run that fits before the deadline; those that do not are passed over (under the lock)."""
        for entry in todo:
            left_s = config.deadline_s - (time.monotonic() - started)
            needed_s = expected_run_s(config, times, entry)
            if not config.deadline_s or needed_s <= left_s:
                return entry
            unscored.append(entry["run_id"])
            echo(
                f"{entry['problem']:<16} {entry['run_id']:<62} {where}not started: needs about {needed_s:.0f} s, "
                f"{max(left_s, 0):.0f} s left (deadline_s)",
                flush=True,
            )
        return None

    def work(gpu: GpuSlot | None) -> None:
        where = f"[GPU {gpu.index}] " if gpu and gpu.of > 1 else ""
        while True:
            with lock:
                entry = next_run(where)
            if entry is None:
                return
            run_started = time.monotonic()
            left_s = config.deadline_s - (run_started - started)
            try:
                _, outcome = score_folder(
                    config,
                    Path(config.out) / entry["folder"],
                    entry["problem"],
                    limit_s=max(left_s, 1.0) if config.deadline_s else None,
                    gpu=gpu,
                )
            except (OSError, ValueError) as exc:  # e.g. an unreadable agent.json: the other runs go on
                outcome = f"not scored: {type(exc).__name__}: {exc}"
            with lock:
                if outcome.startswith("not scored"):
                    unscored.append(entry["run_id"])
                # This call's runs count too (timed here, the scorer's process start included).
                times.setdefault(entry["problem"], []).append(time.monotonic() - run_started)
                echo(f"{entry['problem']:<16} {entry['run_id']:<62} {where}{outcome}", flush=True)

    threads = [threading.Thread(target=work, args=(slot,)) for slot in slots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 1 if unscored else 0


def _shas(folder: Path) -> tuple[str, str]:
    """The agent file's and the adapter's sha256, as agent.json records them."""
    agent = json.loads((folder / "agent.json").read_text())
    return agent["source"]["sha256"], agent["adapter"]["sha256"]
