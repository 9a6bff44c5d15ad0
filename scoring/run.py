"""`python -m scoring.run problem=NAME [key=value ...]`: score a solution and its reference lines.

One run: load and validate the problem, detect the hardware and its peak row, score the solution (the
problem's house kernel by default) in isolated child processes, then the eager / compiled / library
lines on the same shapes, run the problem's counter audits, write one result file and print a summary.
Exit status: 0 when the solution passed everything, 1 when it did not (the result is written either
way), 2 for a usage or problem-data error. `help` and `list` import no torch (scoring.timing, the only module
here that does, is imported where a run needs it), so they answer in a fraction of a second.
"""

# ruff: noqa: E402 -- the imports below come after the first worker's start, which must not wait for torch

from __future__ import annotations

import sys

if __name__ == "__main__":  # as a command: the solution's worker starts while this process imports
    from scoring.first_worker import start_ahead

    start_ahead(sys.argv[1:])

import json
import platform
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from scoring import result_model as model
from scoring.audit import choose_audited_call, run_audits
from scoring.config import ConfigError, RunConfig, help_text, parse_args
from scoring.dataclass_schema import to_json
from scoring.failure_class import classify
from scoring.first_worker import LIST_WORD
from scoring.gpu_state import NOT_SAMPLED, GpuStateSampler
from scoring.hardware import Hardware, HardwareError, detect
from scoring.isolation import REPO_ROOT, outcome_without_a_worker, run_system
from scoring.line_cache import LINE_SHAPE_SETS, find_cached_line, key_digest, line_key, reuse
from scoring.options import wants_help
from scoring.problem import Problem, load_problem
from scoring.report import print_progress, summary_table
from scoring.result import SCHEMA, add_roofline, geomean_score, sha256_file, system_status, write_result
from scoring.seeds import mix, new_secret
from scoring.solution_file import UnreadableSolution, read_solution
from scoring.spec import Shape, SpecError, discover_problems, find_problem, load_spec

if TYPE_CHECKING:
    from scoring.timing import TimingPolicy

TIMED_SETS = ("visible", "held_out")  # property-drawn shapes are checked for correctness, not timed
VERSION = "0.1.0"


def git_state() -> dict:
    def git(*args: str) -> str | None:
        try:
            return (
                subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
                or None
            )
        except (OSError, subprocess.TimeoutExpired):
            return None

    commit = git("rev-parse", "HEAD")
    if not commit:
        return {"commit": None, "dirty": None}
    status = git("status", "--porcelain", "--untracked-files=all") or ""
    return {"commit": commit, "dirty": any(not _written_by_a_run(line) for line in status.splitlines())}


def _written_by_a_run(status_line: str) -> bool:
    """A new, untracked file under results/: what an earlier run in the same checkout wrote (a deck scores one
    problem after another into results/, where the line cache reads). Not a change to the scorer: before
    2026-11-27 22:30 every run after the first of a deck said dirty=true for it. A changed or deleted tracked
    result still makes the checkout dirty (the line cache reuses what committed results say)."""
    return status_line.startswith("?? results/")


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path.resolve())


def _read_agent(path_text: str) -> dict:
    try:
        agent = json.loads(Path(path_text).read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"agent={path_text}: cannot be read as JSON ({exc}); give the harness's agent file") from None
    if not isinstance(agent, dict):
        raise ConfigError(f"agent={path_text}: expected a JSON object with harness, model, effort, ...")
    return agent


def timing_policy(role: str, config: RunConfig) -> TimingPolicy:
    """The solution's stop rule, or the reference lines': the same error target within their own budget
    (`line_budget_s`), never longer than the solution's, so a run asking for a short budget gets it throughout.
    The floor of timed seconds (`min_timed_s`) is the solution's only: the lines are measured once per key
    and reused, and their repeat agreement was measured without it (docs/results.md)."""
    from scoring.timing import TimingPolicy  # imports torch: here, so that help and list answer without it

    solution = role == "solution"
    return TimingPolicy(
        warmup_s=config.warmup_s,
        min_calls=config.min_calls,
        min_timed_s=config.min_timed_s if solution else 0.0,
        max_calls=config.max_calls,
        target_rse=config.target_rse,
        budget_s=config.budget_s if solution else min(config.line_budget_s, config.budget_s),
    )


def worker_task(
    role: str,
    path: Path,
    problem: Problem,
    hardware: Hardware,
    config: RunConfig,
    mixed_seed: int,
    audited: tuple | None = None,
) -> dict:
    """What the judge of one system is told (scoring/judge/process.py, which hands its worker a part);
    `audited` (shape, the draw seed of its timed calls' AuditReservoir) says where the solution's worker reads
    counters for the counter audit."""
    policy = timing_policy(role, config)
    return {
        "problem_dir": str(problem.spec.directory),
        "solution_path": str(path.resolve()),
        "device": hardware.device,
        "l2_bytes": hardware.l2_bytes,
        "seed": mixed_seed,
        "check_seeds": config.check_seeds,
        "timed_check_rate": config.timed_check_rate,
        "timed_sets": list(TIMED_SETS),
        "enforce_forbidden": role == "solution",
        "watch": config.watch,
        "timing": policy.__dict__,
        "audit": {"shape": audited[0].name, "draw_seed": audited[1]} if audited else None,
    }


def score_system(
    role: str,
    path: Path,
    problem: Problem,
    shapes: list[Shape],
    hardware: Hardware,
    config: RunConfig,
    mixed_seed: int,
    log_dir: Path,
    audited: tuple | None = None,
    prestart: bool = False,
    gpu_state: GpuStateSampler = NOT_SAMPLED,
) -> dict:
    """One system's result entry; with `prestart`, a worker for the next system is started while this one runs
    (scoring/standby.py), so a run starts one only where a later system will take it. Each timed shape gets
    the GPU's clocks during its timed calls from `gpu_state` (scoring/gpu_state.py)."""
    name = path.stem if role == "solution" else role
    entry = {"role": role, "name": name, "path": _display_path(path), "label": "", "audits": []}
    if not path.is_file():
        entry.update(
            status="not_available",
            detail=f"{path} does not exist",
            shapes=[],
            sha256=None,
            score=geomean_score([], "not_available"),
        )
        return entry
    try:
        entry["sha256"] = sha256_file(path)
    except OSError:  # unreadable (permissions): read_solution below says so in the import detail
        entry["sha256"] = None
    try:
        entry["label"] = read_solution(path).string_constant("LABEL") or ""
        unreadable = None
    except UnreadableSolution as exc:  # recorded as the import error a worker would report, with no worker
        unreadable = str(exc)
    task = worker_task(role, path, problem, hardware, config, mixed_seed, audited)
    peak_tflops = hardware.peak.tflops_for(problem.spec.precision)

    def progress(index: int, shape: dict) -> None:
        if config.progress:
            shape = add_roofline(
                shape,
                problem.flops(shape["params"]),
                problem.bytes_moved(shape["params"]),
                peak_tflops,
                hardware.peak.bandwidth_gbps,
            )
            print_progress(name, index, len(shapes), shape)

    started = time.perf_counter()
    if unreadable:
        outcome = outcome_without_a_worker(shapes, "import_error", unreadable)
    else:
        outcome = run_system(
            task,
            shapes,
            log_dir / f"{name}.log",
            import_timeout_s=config.import_timeout_s,
            shape_timeout_s=config.shape_timeout_s,
            on_progress=progress,
            max_timed_out_shapes=config.max_timed_out_shapes,
            prestart=prestart,
        )
    if role != "solution" and outcome.import_status == "import_error":
        # A reference line whose library is absent from this machine is not available, not broken.
        outcome.import_status = "not_available"
        outcome.shapes = [dict(s, status="not_available") for s in outcome.shapes]
    entry["shapes"] = [
        add_roofline(
            s, problem.flops(s["params"]), problem.bytes_moved(s["params"]), peak_tflops, hardware.peak.bandwidth_gbps
        )
        for s in gpu_state.attach(outcome.shapes)
    ]
    entry.update(
        library_version=outcome.library_version,
        import_status=outcome.import_status,
        import_detail=outcome.import_detail,
        import_ms=outcome.import_ms,
        timer=outcome.timer,
        kernel_record=outcome.kernel_record,
        processes_started=outcome.processes_started,
        processes=outcome.processes,
        wall_s=time.perf_counter() - started,
        log_tail=outcome.log_tail,
    )
    return entry


@dataclass(frozen=True)
class PlannedLine:
    """A reference line before the run: its file, its cache key, and the result to reuse if one measured it."""

    role: str
    path: Path
    key: dict
    digest: str
    cached: tuple | None

    @property
    def needs_a_worker(self) -> bool:
        return self.cached is None and self.path.is_file()


def plan_line(
    role: str, problem: Problem, shapes: list[Shape], hardware: Hardware, config: RunConfig, out_dir: Path
) -> PlannedLine:
    path = problem.spec.directory / "solutions" / "baselines" / f"{role}.py"
    file_sha256 = sha256_file(path) if path.is_file() else None
    key = line_key(problem, role, file_sha256, hardware, config, [s.name for s in shapes], timing_policy(role, config))
    digest = key_digest(key)
    cached = None if config.fresh_lines or not shapes else find_cached_line(out_dir, digest)
    return PlannedLine(role, path, key, digest, cached)


def reference_line(
    line: PlannedLine,
    problem: Problem,
    shapes: list[Shape],
    hardware: Hardware,
    config: RunConfig,
    mixed_seed: int,
    log_dir: Path,
    prestart: bool,
    gpu_state: GpuStateSampler,
) -> dict:
    """A reference line: copied from the newest result that measured it under the same key, else measured."""
    if line.cached:
        return reuse(line.cached[1], line.cached[0], Path(config.out))
    entry = score_system(
        line.role,
        line.path,
        problem,
        shapes,
        hardware,
        config,
        mixed_seed,
        log_dir,
        prestart=prestart,
        gpu_state=gpu_state,
    )
    entry.update(line_key=line.key, line_key_sha256=line.digest)
    return entry


def finish_system(entry: dict, normwise_bound: float | None) -> dict:
    if "score" in entry:
        return entry
    entry["status"] = system_status(entry["shapes"], entry["audits"])
    entry["score"] = geomean_score(entry["shapes"], entry["status"])
    entry["failure"] = classify(entry, normwise_bound)
    return entry


def run(config: RunConfig, argv: list[str]) -> tuple[dict, Path]:
    problem = load_problem(find_problem(config.problem))
    hardware = detect(config.device, problem.spec.precision, config.peak_tflops, config.peak_gbps)
    secret = config.seed_secret or new_secret()
    mixed_seed = mix(config.seed, secret)
    shapes = list(problem.spec.shapes_for(hardware.profile).select(config.shapes, mixed_seed))
    solution_path = Path(config.solution) if config.solution else problem.spec.directory / "solutions" / "house.py"
    if not solution_path.is_file():
        raise ConfigError(
            f"solution={solution_path}: no such file (give a path to a .py file, or leave it empty "
            "for the house kernel)"
        )
    created = datetime.now(timezone.utc)
    run_id = f"{created:%Y%m%dT%H%M%SZ}-{problem.name}-{solution_path.stem}-{secret[:6]}"
    out_dir = Path(config.out) / hardware.slug()
    log_dir = out_dir / f"{run_id}.logs"
    agent = _read_agent(config.agent) if config.agent else None
    if hardware.profile == "cpu" and config.progress:
        print("CPU profile: no GPU in use; timings are host timings and not scores.", file=sys.stderr)

    wants_audit = config.audits and config.watch and problem.spec.audits and hardware.profile != "cpu"
    audited = choose_audited_call(shapes, mixed_seed) if wants_audit else None
    line_shapes = [s for s in shapes if s.shape_set in LINE_SHAPE_SETS]  # scoring/line_cache.py says why
    lines = [plan_line(role, problem, line_shapes, hardware, config, out_dir) for role in config.line_names()]

    def a_later_system_needs_a_worker(after: int) -> bool:
        return config.prestart and any(line.needs_a_worker for line in lines[after:])

    if config.gpu_state or hardware.profile != "gpu":
        sampler = GpuStateSampler.for_device(hardware.device)  # the CPU profile records no GPU state
    else:
        sampler = GpuStateSampler(None, "not read (gpu_state=false)")
    with sampler as gpu_state:
        systems = [
            score_system(
                "solution",
                solution_path,
                problem,
                shapes,
                hardware,
                config,
                mixed_seed,
                log_dir,
                audited,
                prestart=a_later_system_needs_a_worker(0),
                gpu_state=gpu_state,
            )
        ]
        if config.audits and systems[0]["shapes"] and all(s["status"] == "passed" for s in systems[0]["shapes"]):
            systems[0]["audits"] = run_audits(problem, systems[0]["shapes"], hardware.profile, audited)
        for index, line in enumerate(lines):
            systems.append(
                reference_line(
                    line,
                    problem,
                    line_shapes,
                    hardware,
                    config,
                    mixed_seed,
                    log_dir,
                    prestart=a_later_system_needs_a_worker(index + 1),
                    gpu_state=gpu_state,
                )
            )
    systems = [finish_system(s, problem.spec.tolerance.normwise) for s in systems]

    # Built through the typed models (scoring/result_model.py), so the file's keys and their order are the models'.
    # The systems (from the judge), the agent (the harness's file) and the scores are passed as the dicts they are.
    result = to_json(
        model.Result(
            schema=SCHEMA,
            run_id=run_id,
            created_utc=created.isoformat(),
            command="python -m scoring.run " + " ".join(argv),
            ceiling=model.Ceiling(version=VERSION, **git_state()),
            config=config.snapshot(),
            problem=model.Problem(
                name=problem.name,
                title=problem.spec.title,
                precision=problem.spec.precision,
                content_sha256=problem.spec.content_sha256,
                tolerance=problem.spec.tolerance.__dict__,
                forbidden_ops=list(problem.spec.forbidden_ops),
            ),
            hardware=_hardware_model(hardware),
            seeds=model.Seeds(public=config.seed, secret=secret, mixed=mixed_seed),
            agent=agent,
            shapes=[
                model.ShapeDefinition(
                    name=s.name,
                    shape_set=s.shape_set,
                    params=dict(s.params),
                    flops=problem.flops(s.params),
                    bytes_moved=problem.bytes_moved(s.params),
                )
                for s in shapes
            ],
            systems=systems,
            score=systems[0]["score"],
            status=systems[0]["status"],
        )
    )
    return result, write_result(result, out_dir)


def _hardware_model(hardware: Hardware) -> model.Hardware:
    facts = hardware.as_dict()
    return model.Hardware(
        **dict(facts, peak=model.Peak(**facts["peak"]), notes=list(hardware.notes), host=platform.node())
    )


def list_problems() -> str:
    rows = []
    for name, directory in discover_problems().items():
        try:
            spec = load_spec(directory)
            rows.append(f"{name:<18} {spec.precision:<5} {spec.title}")
        except SpecError as exc:
            rows.append(f"{name:<18} (invalid: {exc})")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    if not argv or wants_help(argv):
        print(help_text())
        return 0
    if argv[0] == LIST_WORD:
        if argv[1:]:
            print(
                f"error: list takes no options (got {' '.join(argv[1:])}); run `python -m scoring.run list`",
                file=sys.stderr,
            )
            return 2
        print(list_problems())
        return 0
    try:
        config = parse_args(argv)
        if not config.problem:
            raise ConfigError("no problem given: python -m scoring.run problem=NAME (`list` shows the problems)")
        find_problem(config.problem)  # a misspelt problem or a missing solution file: said before torch loads
        if config.solution and not Path(config.solution).is_file():
            raise ConfigError(
                f"solution={config.solution}: no such file (give a path to a .py file, or leave it "
                "empty for the house kernel)"
            )
        result, path = run(config, argv)
    except (ConfigError, SpecError, HardwareError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary_table(result))
    print(f"result: {path}")
    return 0 if result["status"] == "passed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
