"""One harness run, start to finish: workspace, sandboxed CLI under a wall-clock budget, transcript and
solution kept, solution scored in a fresh process, result and run.json written, transcript page rendered.

The run is assembled in a scratch folder and moved to `<out>/<hw>/runs/<run_id>/` once the scorer has
named the hardware; `run.json` is written last, so a run folder without one was cut short.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from harnesses import redact, sandbox
from harnesses.agents import get_adapter
from harnesses.budget import run_with_budget
from harnesses.collect import judge
from harnesses.config import HarnessConfig
from harnesses.confine import hand_over, make_scratch, run_confined
from harnesses.confine import release as release_workspace
from harnesses.score import REPO_ROOT, score_solution
from harnesses.workspace import agent_prompt, make_workspace
from scoring.result import finite_or_null
from scoring.spec import find_problem

BASE_ENV = {
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "dumb",
    "TMPDIR": "/tmp",
    "USER": "agent",
    "PYTHONDONTWRITEBYTECODE": "1",
}
PROXY_NAMES = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy")


def find_run(out: Path, run_id: str) -> Path | None:
    """A finished run of this id under any hardware folder (run.json present), else None."""
    found = sorted(Path(out).glob(f"*/runs/{run_id}/run.json"))
    return found[0].parent if found else None


def agent_env(config: HarnessConfig, adapter, invocation_env: dict, readonly: tuple[Path, ...], home: str) -> dict:
    """The allow-list of variables the CLI gets; nothing else of the harness's environment goes in."""
    env = dict(BASE_ENV, HOME=home, PATH=sandbox.sandbox_path_env(readonly))
    names = adapter.env_names + (PROXY_NAMES if config.network == "host" else ())
    env.update({name: os.environ[name] for name in names if name in os.environ})
    env.update(invocation_env)
    if config.gpu:
        env["CUDA_VISIBLE_DEVICES"] = config.gpu
    return env


def scorer_env(config: HarnessConfig, secrets: dict[str, str]) -> dict:
    """The scorer's environment: the harness's own, less every secret (the solution runs in the scorer)."""
    env = {k: v for k, v in os.environ.items() if k not in secrets}
    if config.gpu:
        env["CUDA_VISIBLE_DEVICES"] = config.gpu
    return env


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(finite_or_null(data), indent=1, default=str, allow_nan=False) + "\n")
    tmp.replace(path)


def run_one(config: HarnessConfig) -> Path:
    """Run one cell; returns the run folder. Raises only for usage errors (unknown harness, missing CLI...)."""
    adapter = get_adapter(config.harness)
    exe = adapter.find_executable(config.cli_dir)
    problem_dir = find_problem(config.problem)
    run_id, out = config.effective_run_id(), Path(config.out).resolve()
    scratch_root = Path(tempfile.mkdtemp(prefix=f"ceiling-{run_id}-"))
    run_dir = scratch_root / "run"
    (run_dir / "logs").mkdir(parents=True)
    confined = config.sandbox == "bwrap"
    scratch = make_scratch(scratch_root, config, confined)
    try:
        make_workspace(problem_dir, scratch.workspace)
        hand_over(scratch)
        started = datetime.now(timezone.utc)
        if confined:
            readonly = tuple(sorted({exe.parent.absolute(), exe.resolve().parent}))
            inv = adapter.build(
                str(exe), config.model, config.effort, agent_prompt(problem_dir, sandbox.WORKSPACE), Path(sandbox.HOME)
            )
            env = agent_env(config, adapter, inv.env, readonly, sandbox.HOME)
            outcome, confinement = run_confined(
                config,
                scratch,
                list(inv.argv),
                env,
                readonly,
                (REPO_ROOT, out, scratch_root, Path.home()),
                run_dir / "logs",
            )
        else:
            inv = adapter.build(
                str(exe), config.model, config.effort, agent_prompt(problem_dir, str(scratch.workspace)), scratch.home
            )
            env = agent_env(config, adapter, inv.env, (exe.parent,), str(scratch.home))
            (run_dir / "logs" / "sandbox.log").write_text("sandbox=none: the CLI ran without isolation\n")
            outcome = run_with_budget(
                list(inv.argv),
                config.time_limit_s,
                run_dir / "logs" / "agent.stdout",
                run_dir / "logs" / "agent.stderr",
                env=env,
                cwd=scratch.workspace,
            )
            confinement = {"sandbox": "none"}
        got = judge(
            adapter,
            outcome,
            config.time_limit_s,
            run_dir / "logs" / "agent.stdout",
            run_dir,
            scratch.home,
            scratch.workspace,
        )
    finally:
        release_workspace(scratch)
    secrets = redact.secret_values(adapter.env_names)
    # Before scoring too: the scorer must not carry a secret the agent wrote into solution.py into its result.
    redactions = redact.redact_folder(run_dir, secrets)

    agent = {
        "harness": adapter.name,
        "model": config.model,
        "effort": config.effort,
        "effort_applied": inv.effort_applied,
        "run_dir": f"runs/{run_id}",
        "transcript": str(got.transcript.relative_to(run_dir)) if got.transcript else None,
        "tokens": got.tokens,
        "cost_usd": got.cost_usd,
        "wall_s": round(outcome.wall_s, 3),
        "complete": got.complete,
        "incomplete_reason": got.incomplete_reason,
    }
    score_env = scorer_env(config, secrets)
    scored = None
    if got.solution and config.score:
        scored = score_solution(
            config.problem,
            got.solution,
            agent,
            out,
            config.device,
            config.score_args.split(),
            run_dir / "logs" / "score.log",
            score_env,
        )
        if scored.result_path:
            shutil.copyfile(scored.result_path, run_dir / "result.json")
    why_unscored = "not scored: " + ("score=false" if not config.score else "no solution.py")
    redactions += redact.redact_folder(run_dir, secrets)  # the scorer's log and result, before publishing
    hw = (
        scored.result_path.parent.name
        if scored and scored.result_path
        else ("cpu" if config.device == "cpu" else "unscored")
    )
    final = out / hw / "runs" / run_id
    if final.exists():  # an earlier attempt that never finished: keep it aside, never delete it
        stale = final.parent / ".stale" / f"{run_id}-{int(time.time())}"
        stale.parent.mkdir(parents=True, exist_ok=True)
        final.rename(stale)
    final.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(run_dir), final)
    shutil.rmtree(scratch_root, ignore_errors=True)
    page = None
    if config.render and got.transcript:
        from viewer import write_transcript_page

        transcript = final / got.transcript.relative_to(run_dir)
        page = write_transcript_page(transcript, final / "transcript.html", run_dir=final)
    _write_json(
        final / "run.json",
        {
            "schema": "ceiling.run/1",
            "run_id": run_id,
            "started_utc": started.isoformat(),
            "config": dataclasses.asdict(config),
            "command": [Path(sys.executable).name, "-m", "harnesses.run"],
            "agent_argv": list(inv.argv),
            "agent_env_names": sorted(env),
            "sandbox": config.sandbox,
            "exit_code": outcome.exit_code,
            "timed_out": outcome.timed_out,
            "wall_s": round(outcome.wall_s, 3),
            "complete": got.complete,
            "incomplete_reason": got.incomplete_reason,
            "agent": agent,
            "confinement": confinement,
            "native_files": [str(p.relative_to(run_dir)) for p in got.native],
            "files": [dataclasses.asdict(k) for k in got.kept],
            "refused_files": list(got.refused),
            "redactions": [dataclasses.asdict(r) for r in redactions],
            "solution": "solution.py" if got.solution else None,
            "score": {
                "status": scored.status if scored else why_unscored,
                "exit_code": scored.exit_code if scored else None,
                "result": str(scored.result_path) if scored and scored.result_path else None,
            },
            "page": "transcript.html" if page else None,
            "finished": True,
        },
    )
    return final
