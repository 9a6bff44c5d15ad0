"""Import kernelbench.com's published H100 agent solutions as Ceiling solution folders, and score them.

    python -m harnesses.import_kernelbench path=CLONE [problems=fp8_gemm,topk] [runs=claude] [score=true]
    python -m harnesses.import_kernelbench score=true [problems=...] [runs=...]   the folders imported before
    python -m harnesses.import_kernelbench help

For each published run of a problem with a faithful adapter (harnesses/kernelbench/adapters/), writes
<out>/<problem>/<run_id>/ (harnesses/kernelbench/layout.py): the agent's file unchanged, our adapter, and
agent.json with the agent's metadata, the file's provenance (repository, commit, path, sha256) and their
published verdict. Their files stay out of the committed tree: `out` defaults to a git-ignored folder.
With score=true each folder is scored by `python -m scoring.run` (solution only, all shape sets, audits
on), one at a time on each GPU that `gpus=` names (one GPU: one run after another); a run whose result for
the same file and adapter already exists under `results` is skipped unless rescore=true. Without path,
score=true scores the folders listed in <out>/index.json (an import made elsewhere: the clone need not
travel to the GPU machine). docs/kernelbench.md has the adapters and what the results say.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from harnesses.kernelbench.catalog import (
    DECK,
    REPOSITORY,
    CatalogError,
    PublishedRun,
    clone_commit,
    published_runs,
)
from harnesses.executors import local_gpus
from harnesses.kernelbench.fallbacks import CUTLASS_FOLDERS, cutlass_folders_in
from harnesses.kernelbench.layout import AGENT_MODULE, adapter_path, sha256_hex, write_solution_folder
from scoring.options import (OptionError, above, at_least, help_text, opt, parse, wants_help,
                             with_overrides)

REPO_ROOT = Path(__file__).resolve().parent.parent
USAGE = "python -m harnesses.import_kernelbench path=CLONE [key=value ...]"
RESCORED_FROM = "kernelbench.com"


@dataclass(frozen=True)
class ImportConfig:
    path: str = opt("", "a local clone of github.com/Infatoshi/kernelbench.com (its files are read, never copied "
                        "into this repository)")
    problems: str = opt("", "comma list of our problem names to import; empty = every adaptable problem")
    runs: str = opt("", "import only runs whose id contains one of these comma-separated substrings")
    out: str = opt(".kernelbench", "folder for the solution folders (git-ignored by default)")
    score: bool = opt(False, "score each imported folder with python -m scoring.run")
    rescore: bool = opt(False, "score again a run whose result for the same file and adapter exists")
    results: str = opt("results", "results root for score=true: <results>/<hardware>/<run_id>.json")
    device: str = opt("auto", "scorer device: auto, cpu, cuda or cuda:N (with gpus=: auto or cuda, the pinned GPU)")
    gpus: str = opt("", "GPU indices to share the runs out among, one run on each at a time, each scorer pinned "
                        "with CUDA_VISIBLE_DEVICES: a comma list, auto (all that nvidia-smi lists) or empty "
                        "(one run at a time on `device`)")
    score_args: str = opt("", "extra scorer key=value options, space-separated")
    cutlass: str = opt("", "a CUTLASS source tree (holding include/cutlass/cutlass.h) offered to the agents' builds, "
                           "as their workspaces had one: CUTLASS_DIR/ROOT/PATH/HOME/INCLUDE, links at ./cutlass, ./cutlass_src, "
                           "./cutlass_3.9 and ./third_party/cutlass in "
                           "each run folder and at /tmp/cutlass; empty = none (a build that needs it fails)")
    import_timeout_s: float = opt(900.0, "the scorer's import limit: an adapter builds the agent's C++/CUDA "
                                         "extension while importing it (seconds)", allowed=above(0, "seconds"))
    deadline_s: float = opt(0.0, "finish within this many seconds of scoring's start: a run starts only if its "
                                 "problem's median run so far (the results root's and this call's, x1.25 + 15 s; "
                                 "unknown_run_s when there is none) fits in what is left, else it is passed over "
                                 "and a shorter problem's run may still start; a run still going at the deadline "
                                 "is killed; 0 = no deadline",
                            allowed=at_least(0, "seconds"))
    unknown_run_s: float = opt(120.0, "with deadline_s: the time assumed for a problem with no run scored yet",
                               allowed=above(0, "seconds"))


def load_adapter_facts(problem: str) -> dict:
    """An adapter's FAITHFUL, WHY_NOT, PER_CALL_GLUE and THEIR_PROBLEM, read without running its imports."""
    path = adapter_path(problem)
    if not path.is_file():
        return {"faithful": False, "why_not": f"no adapter written ({_shown(path)} is absent)"}
    import ast

    facts = {"faithful": False, "why_not": "", "per_call_glue": "", "their_problem": ""}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            key = node.targets[0].id.lower()
            if key in facts:
                try:
                    facts[key] = ast.literal_eval(node.value)
                except ValueError:
                    pass
    return facts


def _shown(path: Path) -> str:
    """A path relative to the repository where it lies inside it."""
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def agent_metadata(run: PublishedRun, source: bytes, commit: str, problem_facts: dict) -> dict:
    adapter = adapter_path(run.problem)
    return {
        "harness": run.harness, "model": run.model, "effort": run.effort or "default", "run_date": run.run_date,
        "rescored_from": RESCORED_FROM,
        "source": {"repository": REPOSITORY, "commit": commit, "path": run.solution_path,
                   "sha256": sha256_hex(source), "run_id": run.run_id, "problem": run.their_problem,
                   "deck": DECK, "license": "MIT (benchmarks/hard)"},
        "published": run.published,
        "adapter": {"path": _shown(adapter), "sha256": sha256_hex(adapter.read_bytes()),
                    "per_call_glue": problem_facts.get("per_call_glue", "")},
    }


def selected_runs(config: ImportConfig, runs: list[PublishedRun]) -> tuple[list[PublishedRun], dict[str, str]]:
    """The runs to import, and the skipped problems with the reason."""
    wanted = {p.strip() for p in config.problems.split(",") if p.strip()}
    known = {run.problem for run in runs}
    unknown = wanted - known
    if unknown:
        raise OptionError(f"problems={config.problems}: {', '.join(sorted(unknown))} not among the published "
                          f"problems ({', '.join(sorted(known))})")
    skipped, chosen = {}, []
    substrings = [s.strip() for s in config.runs.split(",") if s.strip()]
    for run in runs:
        if wanted and run.problem not in wanted:
            continue
        facts = load_adapter_facts(run.problem)
        if not facts["faithful"]:
            skipped[run.problem] = facts["why_not"] or "the adapter says it is not faithful"
            continue
        if substrings and not any(s in run.run_id for s in substrings):
            continue
        chosen.append(run)
    return chosen, skipped


def existing_result(results: Path, source_sha256: str, adapter_sha256: str) -> Path | None:
    """A result already written for this agent file and this adapter."""
    for path in sorted(results.glob("*/*.json")):
        try:
            agent = json.loads(path.read_text()).get("agent") or {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            continue
        if (isinstance(agent, dict) and (agent.get("source") or {}).get("sha256") == source_sha256
                and (agent.get("adapter") or {}).get("sha256") == adapter_sha256):
            return path
    return None


def cutlass_version(root: Path) -> str:
    """CUTLASS's version from include/cutlass/version.h, e.g. "4.2.0"."""
    text = (root / "include" / "cutlass" / "version.h").read_text(errors="replace")
    parts = [re.search(rf"#define CUTLASS_{part}\s+(\d+)", text) for part in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else "unknown"


def offer_cutlass(root: Path, folder: Path, env: dict) -> dict:
    """Put CUTLASS where the agents' files look for it: the folders beside the file that published files
    look in (CUTLASS_FOLDERS: ./cutlass, ./cutlass_src, ./cutlass_3.9, ./third_party/cutlass; their agents
    cloned or vendored it there), /tmp/cutlass and the CUTLASS_* variables. A file that finds none falls
    back or fails to build, and its result would judge other code than kernelbench.com timed. Returns the
    environment record for agent.json: what was offered, and where this file looks."""
    if not (root / "include" / "cutlass" / "cutlass.h").is_file():
        raise OptionError(f"cutlass={root}: no include/cutlass/cutlass.h there; give a CUTLASS source tree")
    root = root.resolve()
    for name in ("CUTLASS_DIR", "CUTLASS_ROOT", "CUTLASS_PATH", "CUTLASS_HOME"):
        env[name] = str(root)
    env["CUTLASS_INCLUDE"] = str(root / "include")
    for link in (*(folder / relative for relative in CUTLASS_FOLDERS), Path("/tmp/cutlass")):
        if not link.exists() and not link.is_symlink():
            try:
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(root, target_is_directory=True)
            except OSError:
                pass  # a location we may not write: the variables remain
    offered = ", ".join(f"./{relative}" for relative in CUTLASS_FOLDERS)
    record = {"cutlass": f"CUTLASS {cutlass_version(root)} source tree, offered at {offered}, /tmp/cutlass and "
                         "CUTLASS_DIR/ROOT/PATH/HOME/INCLUDE"}
    agent_file = folder / f"{AGENT_MODULE}.py"
    looks_in = cutlass_folders_in(agent_file.read_text(errors="replace")) if agent_file.is_file() else []
    if looks_in:
        record["cutlass_looked_for"] = looks_in
    return record


@dataclass(frozen=True)
class GpuSlot:
    """One GPU the runs are shared out to: its index on this host and how many share the work."""
    index: str
    of: int


def score_folder(config: ImportConfig, folder: Path, problem: str, limit_s: float | None = None,
                 gpu: GpuSlot | None = None) -> tuple[int, str]:
    """Score one folder in a fresh process; (exit code, the result path or why there is none). The scorer's
    output goes to <folder>/score.log as it is written, so a run cut off (limit_s, or the caller's own limit)
    leaves what it did; past limit_s the scorer and its workers are killed. With `gpu` the scorer sees that
    GPU alone (CUDA_VISIBLE_DEVICES): the agents' files allocate on `cuda`, whatever device we name."""
    out = Path(config.results).resolve()
    defaults = ["lines=none", f"device={config.device}", f"import_timeout_s={config.import_timeout_s:g}"]
    argv = [sys.executable, "-m", "scoring.run", f"problem={problem}", f"solution={folder / 'solution.py'}",
            f"agent={folder / 'agent.json'}", f"out={out}", *with_overrides(defaults, config.score_args.split())]
    env = dict(os.environ)
    if gpu:
        env["CUDA_VISIBLE_DEVICES"] = gpu.index
    # Extensions the agents build are kept beside their folders, not in the user's home cache.
    env.setdefault("TORCH_EXTENSIONS_DIR", str(Path(config.out).resolve() / "torch_extensions"))
    # Made here: torch creates its default folder itself, but some agents' builds write into the named one
    # directly (a lock file), and an absent folder failed their import for a reason of ours.
    Path(env["TORCH_EXTENSIONS_DIR"]).mkdir(parents=True, exist_ok=True)
    agent_file = folder / "agent.json"
    agent = json.loads(agent_file.read_text())
    agent["environment"] = offer_cutlass(Path(config.cutlass), folder, env) if config.cutlass else \
        {"cutlass": "none offered"}
    if gpu and gpu.of > 1:  # a reader comparing runs should know the host scored others meanwhile
        agent["environment"]["gpu"] = (f"GPU {gpu.index} of {gpu.of} on this host scoring at once, one run each "
                                       "(CUDA_VISIBLE_DEVICES)")
    agent_file.write_text(json.dumps(agent, indent=1, sort_keys=True) + "\n")
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
            return proc.returncode, (f"not scored: cut off after {ran_s:.0f} s (the deadline); "
                                     f"its output so far: {log_path}")
    output = log_path.read_text(errors="replace")
    lines = [line for line in output.splitlines() if line.startswith("result: ")]
    if not lines:
        tail = (output.strip().splitlines() or ["no output"])[-1]
        return returncode, f"not scored: {tail}"
    return returncode, lines[-1][len("result: "):].strip()


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


def import_runs(config: ImportConfig, echo=print) -> list[dict]:
    """Write a folder per selected run and <out>/index.json; the index entries."""
    clone = Path(config.path).expanduser()
    if not clone.is_dir():
        raise OptionError(f"path={config.path}: not a folder; give a local clone of {REPOSITORY}")
    runs, skipped = selected_runs(config, published_runs(clone))
    for problem, why in sorted(skipped.items()):
        echo(f"skip {problem}: {why}")
    commit = clone_commit(clone)
    out = Path(config.out)
    index = []
    for run in runs:
        source = (clone / run.solution_path).read_bytes()
        metadata = agent_metadata(run, source, commit, load_adapter_facts(run.problem))
        folder = out / run.problem / run.run_id
        write_solution_folder(folder, run.problem, source, metadata)
        index.append({"run_id": run.run_id, "problem": run.problem, "folder": str(folder.relative_to(out))})
    out.mkdir(parents=True, exist_ok=True)
    kept = earlier_entries_kept(out, commit, {entry["run_id"] for entry in index})
    (out / "index.json").write_text(json.dumps({"clone": str(clone.resolve()), "commit": commit,
                                                "runs": kept + index}, indent=1) + "\n")
    echo(f"{len(index)} runs imported into {out}/ ({len(skipped)} problems skipped); index: {out / 'index.json'}"
         + (f" (with {len(kept)} runs imported before)" if kept else ""))
    return index


def earlier_entries_kept(out: Path, commit: str, reimported: set[str]) -> list[dict]:
    """Entries of an existing index from the same clone commit whose folders are still there, so that importing
    one problem after another builds up one index instead of forgetting the earlier problems."""
    try:
        earlier = json.loads((out / "index.json").read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    if not isinstance(earlier, dict) or earlier.get("commit") != commit or not isinstance(earlier.get("runs"), list):
        return []
    return [entry for entry in earlier["runs"]
            if isinstance(entry, dict) and entry.get("run_id") not in reimported
            and (out / str(entry.get("folder", "")) / "agent.json").is_file()]


def indexed_runs(config: ImportConfig) -> list[dict]:
    """The entries of <out>/index.json that problems= and runs= select."""
    path = Path(config.out) / "index.json"
    try:
        entries = json.loads(path.read_text())["runs"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise OptionError(f"{path}: no readable index ({exc}); import first with path=CLONE") from None
    wanted = {p.strip() for p in config.problems.split(",") if p.strip()}
    substrings = [s.strip() for s in config.runs.split(",") if s.strip()]
    return [e for e in entries if (not wanted or e["problem"] in wanted)
            and (not substrings or any(s in e["run_id"] for s in substrings))]


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
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError, KeyError, IndexError,
                TypeError, ValueError):
            continue
        times.setdefault(problem, []).append(wall_s)
    return times


def gpu_slots(config: ImportConfig) -> list[GpuSlot | None]:
    """Where runs go at once: one slot per GPU of gpus=, or a single unpinned slot (device= alone)."""
    indices = local_gpus(config.gpus) if config.gpus else []
    if indices and config.device not in ("auto", "cuda"):
        raise OptionError(f"gpus={config.gpus} with device={config.device}: each scorer is pinned to one GPU, "
                          "which it sees as cuda; leave device=auto or give device=cuda")
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
            echo(f"{entry['problem']:<16} {entry['run_id']:<62} {where}not started: needs about {needed_s:.0f} s, "
                 f"{max(left_s, 0):.0f} s left (deadline_s)", flush=True)
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
                _, outcome = score_folder(config, Path(config.out) / entry["folder"], entry["problem"],
                                          limit_s=max(left_s, 1.0) if config.deadline_s else None, gpu=gpu)
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


def run_import(config: ImportConfig, echo=print) -> int:
    if not config.path and not config.score:
        raise OptionError("give path=CLONE to import, or score=true to score the folders imported before")
    entries = import_runs(config, echo) if config.path else indexed_runs(config)
    return score_runs(config, entries, echo) if config.score else 0


def main(argv: list[str]) -> int:
    if not argv or wants_help(argv):
        print(__doc__.strip() + "\n\n" + help_text(ImportConfig, USAGE))
        return 0
    try:
        return run_import(parse(ImportConfig, argv, "python -m harnesses.import_kernelbench"))
    except (OptionError, CatalogError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
