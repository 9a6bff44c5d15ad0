"""`python -m harnesses.sweep SWEEP.toml [key=value ...]`: harness x model x effort x problems x trials.

The sweep file (TOML):

    problems = ["fp8_gemm"]
    trials = 3
    [run]                       # any `python -m harnesses.run` key, applied to every cell
    out = "results"
    time_limit_s = 2700
    [[agents]]
    harness = "claude"
    model = "claude-opus-4-5"
    efforts = ["high"]          # or effort = "high"; cli_dir = "..." per agent too
    [slurm]                     # only for executor=slurm
    partition = "gpu"

Cells whose run folder holds a run.json are skipped (resumable); each cell runs in its own process, so one
failing cell does not stop the others; progress lines are printed as cells finish and a summary table
closes the sweep. `python -m harnesses.sweep cell CELLS.json INDEX` runs one cell (used by SLURM jobs).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from harnesses.config import HarnessConfig
from scoring.options import OptionError, help_text, opt, parse, wants_help
from harnesses.runner import find_run

USAGE = "python -m harnesses.sweep SWEEP.toml [key=value ...]"
_TOP_KEYS = {"problems", "trials", "run", "agents", "slurm"}
_AGENT_KEYS = {"harness", "model", "effort", "efforts", "cli_dir"}


@dataclass(frozen=True)
class SweepOptions:
    executor: str = opt(
        "local", "local (this host's GPUs, one run per GPU) or slurm (one job per cell)", ("local", "slurm")
    )
    gpus: str = opt("auto", "local executor: GPU indices (comma list), auto (all that nvidia-smi lists) or none")
    out: str = opt("", "results root; empty = the sweep file's [run] out (default results)")
    device: str = opt("", "scorer device for every cell; empty = the sweep file's (default auto)")
    dry_run: bool = opt(False, "list the cells and whether each is done, run nothing")
    slurm_wait: bool = opt(True, "slurm executor: wait for the job array to finish, then print the summary")


def _fail(path: Path, where: str, problem: str, fix: str) -> OptionError:
    return OptionError(f"{path}: {where}: {problem}; {fix}")


def load_cells(path: Path, options: SweepOptions) -> tuple[list[HarnessConfig], dict]:
    """The sweep's cells, in order, and its [slurm] table."""
    data = tomllib.loads(Path(path).read_text())
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise _fail(path, sorted(unknown)[0], "unknown key", f"use only {', '.join(sorted(_TOP_KEYS))}")
    problems, trials, agents = data.get("problems"), data.get("trials", 1), data.get("agents")
    if not isinstance(problems, list) or not problems or not all(isinstance(p, str) for p in problems):
        raise _fail(path, "problems", "missing or not a list of names", 'write problems = ["fp8_gemm"]')
    if not isinstance(trials, int) or trials < 1:
        raise _fail(path, "trials", f"{trials!r} is not a positive integer", "write trials = 3")
    if not isinstance(agents, list) or not agents:
        raise _fail(path, "agents", "no [[agents]] tables", 'add [[agents]] with harness = "claude", model = "..."')
    run_table = {k: str(v) for k, v in data.get("run", {}).items()}
    overrides = {k: v for k, v in (("out", options.out), ("device", options.device)) if v}
    base = parse(HarnessConfig, [f"{k}={v}" for k, v in {**run_table, **overrides}.items()], USAGE)
    cells = []
    for i, agent in enumerate(agents):
        bad = set(agent) - _AGENT_KEYS
        if bad or "harness" not in agent:
            raise _fail(
                path,
                f"agents[{i}]",
                f"keys {sorted(bad) or 'harness missing'}",
                f"use {', '.join(sorted(_AGENT_KEYS))} (harness is required)",
            )
        efforts = agent.get("efforts") or [agent.get("effort", "default")]
        for effort in efforts:
            for problem in problems:
                for trial in range(trials):
                    cells.append(
                        dataclasses.replace(
                            base,
                            harness=agent["harness"],
                            model=agent.get("model", ""),
                            effort=effort,
                            problem=problem,
                            trial=trial,
                            cli_dir=agent.get("cli_dir", base.cli_dir),
                            run_id="",
                        )
                    )
    ids = [c.effective_run_id() for c in cells]
    if len(set(ids)) != len(ids):
        raise _fail(path, "agents", "two cells share a run id", "list each harness/model/effort once")
    return cells, data.get("slurm", {})


def summarize(cells: list[HarnessConfig]) -> str:
    rows = {}
    for cell in cells:
        key = (cell.harness, cell.model or "-", cell.effort, cell.problem)
        row = rows.setdefault(key, {"runs": 0, "complete": 0, "passed": 0, "fractions": []})
        run_dir = find_run(Path(cell.out), cell.effective_run_id())
        if run_dir is None:
            continue
        record = json.loads((run_dir / "run.json").read_text())
        row["runs"] += 1
        row["complete"] += bool(record.get("complete"))
        if record["score"]["status"] == "passed":
            row["passed"] += 1
            result = json.loads((run_dir / "result.json").read_text())
            if result["score"]["fraction"] is not None:  # null: a passed run with no headline shapes
                row["fractions"].append(result["score"]["fraction"])
    head = (
        f"{'harness':<10} {'model':<22} {'effort':<8} {'problem':<14} {'runs':>5} {'complete':>9} "
        f"{'passed':>7} {'best':>7}"
    )
    lines = [head, "-" * len(head)]
    for (harness, model, effort, problem), row in rows.items():
        best = f"{max(row['fractions']):.3f}" if row["fractions"] else "-"
        lines.append(
            f"{harness:<10} {model:<22} {effort:<8} {problem:<14} {row['runs']:>5} {row['complete']:>9} "
            f"{row['passed']:>7} {best:>7}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv or wants_help(argv):
        print(help_text(SweepOptions, USAGE) + "\n\n" + __doc__.split("\n\n", 1)[1])
        return 0
    from harnesses import executors

    if argv[0] == "cell":  # what a SLURM job runs: cell CELLS.json INDEX
        if len(argv) != 3 or not argv[2].isdigit() or not Path(argv[1]).is_file():
            print(
                f"error: cell takes CELLS.json INDEX (an existing file and a number), got {' '.join(argv[1:])!r}",
                file=sys.stderr,
            )
            return 2
        return executors.run_cell_from_file(Path(argv[1]), int(argv[2]))
    try:
        if argv[0].startswith("-") or "=" in argv[0]:
            raise OptionError(f"{argv[0]}: the sweep file comes first: {USAGE}")
        if not Path(argv[0]).is_file():
            raise OptionError(
                f"{argv[0]}: no such sweep file; give a TOML file (`python -m harnesses.sweep help` shows its format)"
            )
        options = parse(SweepOptions, argv[1:], "python -m harnesses.sweep")
        cells, slurm = load_cells(Path(argv[0]), options)
    except (OptionError, OSError, tomllib.TOMLDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    pending = [c for c in cells if find_run(Path(c.out), c.effective_run_id()) is None]
    print(f"sweep {argv[0]}: {len(cells)} cells, {len(cells) - len(pending)} done, {len(pending)} to run")
    if options.dry_run:
        for cell in cells:
            print(f"  {'pending' if cell in pending else 'done   '} {cell.effective_run_id()}")
        return 0
    if options.executor == "slurm":
        failures = executors.run_slurm(pending, slurm, Path(argv[0]).stem, wait=options.slurm_wait)
    else:
        failures = executors.run_local(pending, executors.local_gpus(options.gpus))
    print(summarize(cells))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
