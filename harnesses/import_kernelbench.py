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
This module is the command line and the import; harnesses/kernelbench/schedule.py scores the folders (GPUs,
deadline) and harnesses/kernelbench/cutlass_offer.py offers CUTLASS to the agents' builds.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from harnesses.kernelbench.catalog import (
    DECK,
    RESCORED_FROM,
    REPOSITORY,
    CatalogError,
    PublishedRun,
    clone_commit,
    published_runs,
)
from harnesses.kernelbench.layout import adapter_path, sha256_hex, write_solution_folder
from harnesses.kernelbench.schedule import score_runs
from scoring.options import OptionError, above, at_least, help_text, opt, parse, wants_help

REPO_ROOT = Path(__file__).resolve().parent.parent
USAGE = "python -m harnesses.import_kernelbench path=CLONE [key=value ...]"


@dataclass(frozen=True)
class ImportConfig:
    path: str = opt(
        "",
        "a local clone of github.com/Infatoshi/kernelbench.com (its files are read, never copied into this repository)",
    )
    problems: str = opt("", "comma list of our problem names to import; empty = every adaptable problem")
    runs: str = opt("", "import only runs whose id contains one of these comma-separated substrings")
    out: str = opt(".kernelbench", "folder for the solution folders (git-ignored by default)")
    score: bool = opt(False, "score each imported folder with python -m scoring.run")
    rescore: bool = opt(False, "score again a run whose result for the same file and adapter exists")
    results: str = opt("results", "results root for score=true: <results>/<hardware>/<run_id>.json")
    device: str = opt("auto", "scorer device: auto, cpu, cuda or cuda:N (with gpus=: auto or cuda, the pinned GPU)")
    gpus: str = opt(
        "",
        "GPU indices to share the runs out among, one run on each at a time, each scorer pinned "
        "with CUDA_VISIBLE_DEVICES: a comma list, auto (all that nvidia-smi lists) or empty "
        "(one run at a time on `device`)",
    )
    score_args: str = opt("", "extra scorer key=value options, space-separated")
    cutlass: str = opt(
        "",
        "a CUTLASS source tree (holding include/cutlass/cutlass.h) offered to the agents' builds, "
        "as their workspaces had one: CUTLASS_DIR/ROOT/PATH/HOME/INCLUDE, links at ./cutlass, ./cutlass_src, "
        "./cutlass_3.9 and ./third_party/cutlass in "
        "each run folder (its writable copy, .kernelbench/workspaces/) and at /tmp/cutlass; "
        "empty = none (a build that needs it fails)",
    )
    import_timeout_s: float = opt(
        900.0,
        "the scorer's import limit: an adapter builds the agent's C++/CUDA extension while importing it (seconds)",
        allowed=above(0, "seconds"),
    )
    deadline_s: float = opt(
        0.0,
        "finish within this many seconds of scoring's start: a run starts only if its "
        "problem's median run so far (the results root's and this call's, x1.25 + 15 s; "
        "unknown_run_s when there is none) fits in what is left, else it is passed over "
        "and a shorter problem's run may still start; a run still going at the deadline "
        "is killed; 0 = no deadline",
        allowed=at_least(0, "seconds"),
    )
    unknown_run_s: float = opt(
        120.0, "with deadline_s: the time assumed for a problem with no run scored yet", allowed=above(0, "seconds")
    )


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
        "harness": run.harness,
        "model": run.model,
        "effort": run.effort or "default",
        "run_date": run.run_date,
        "rescored_from": RESCORED_FROM,
        "source": {
            "repository": REPOSITORY,
            "commit": commit,
            "path": run.solution_path,
            "sha256": sha256_hex(source),
            "run_id": run.run_id,
            "problem": run.their_problem,
            "deck": DECK,
            "license": "MIT (benchmarks/hard)",
        },
        "published": run.published,
        "adapter": {
            "path": _shown(adapter),
            "sha256": sha256_hex(adapter.read_bytes()),
            "per_call_glue": problem_facts.get("per_call_glue", ""),
        },
    }


def selected_runs(config: ImportConfig, runs: list[PublishedRun]) -> tuple[list[PublishedRun], dict[str, str]]:
    """The runs to import, and the skipped problems with the reason."""
    wanted = {p.strip() for p in config.problems.split(",") if p.strip()}
    known = {run.problem for run in runs}
    unknown = wanted - known
    if unknown:
        raise OptionError(
            f"problems={config.problems}: {', '.join(sorted(unknown))} not among the published "
            f"problems ({', '.join(sorted(known))})"
        )
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
    (out / "index.json").write_text(
        json.dumps({"clone": str(clone.resolve()), "commit": commit, "runs": kept + index}, indent=1) + "\n"
    )
    echo(
        f"{len(index)} runs imported into {out}/ ({len(skipped)} problems skipped); index: {out / 'index.json'}"
        + (f" (with {len(kept)} runs imported before)" if kept else "")
    )
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
    return [
        entry
        for entry in earlier["runs"]
        if isinstance(entry, dict)
        and entry.get("run_id") not in reimported
        and (out / str(entry.get("folder", "")) / "agent.json").is_file()
    ]


def indexed_runs(config: ImportConfig) -> list[dict]:
    """The entries of <out>/index.json that problems= and runs= select."""
    path = Path(config.out) / "index.json"
    try:
        entries = json.loads(path.read_text())["runs"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise OptionError(f"{path}: no readable index ({exc}); import first with path=CLONE") from None
    wanted = {p.strip() for p in config.problems.split(",") if p.strip()}
    substrings = [s.strip() for s in config.runs.split(",") if s.strip()]
    return [
        e
        for e in entries
        if (not wanted or e["problem"] in wanted) and (not substrings or any(s in e["run_id"] for s in substrings))
    ]


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
