"""One harness run's configuration: a frozen dataclass, every field with a default and a help line.
Its snapshot is written into run.json."""

from __future__ import annotations

from dataclasses import dataclass

from harnesses.budget import DEFAULT_LIMIT_S
from scoring.options import above, at_least, opt

NETWORK_CHOICES = ("proxy", "none", "host")
SANDBOX_CHOICES = ("bwrap", "none")
EFFORT_CHOICES = ("default", "low", "medium", "high", "xhigh")


@dataclass(frozen=True)
class HarnessConfig:
    harness: str = opt("claude", "agent CLI adapter: claude, codex, opencode, kimi, cursor, droid, gemini")
    model: str = opt("", "model name passed to the CLI; empty = the CLI's default")
    effort: str = opt("default", "reasoning effort: default, low, medium, high, xhigh", EFFORT_CHOICES)
    problem: str = opt("fp8_gemm", "problem folder name under problems/")
    trial: int = opt(0, "trial number (part of the run id)", allowed=at_least(0))
    run_id: str = opt("", "run id; empty = <harness>-<model>-<effort>-<problem>-t<trial>")
    out: str = opt("results", "results root: runs go to <out>/<hw>/runs/<run_id>/")
    device: str = opt("auto", "scorer device: auto, cpu, cuda or cuda:N")
    gpu: str = opt("", "pin the agent and the scorer to this GPU index (CUDA_VISIBLE_DEVICES); empty = all")
    time_limit_s: float = opt(
        DEFAULT_LIMIT_S, "wall-clock limit for the agent, whole process group (seconds)", allowed=above(0, "seconds")
    )
    network: str = opt(
        "proxy",
        "sandbox network: proxy (only the allow-list proxy to the CLI's API hosts), none, "
        "or host (the host's network, unsafe: debugging only)",
        NETWORK_CHOICES,
    )
    api_hosts: str = opt("", "network=proxy: hosts allowed besides the CLI's own API hosts (comma list)")
    max_processes: int = opt(512, "processes and threads the agent may have at once", allowed=at_least(16))
    memory_mb: int = opt(
        32768,
        "memory cap of the agent's processes, its tmpfs included (MiB; needs a cgroup); 0 = none",
        allowed=at_least(0),
    )
    workspace_mb: int = opt(
        8192, "size cap of the workspace and of the home (MiB; tmpfs when the harness is root)", allowed=at_least(16)
    )
    tmp_mb: int = opt(4096, "size cap of the agent's /tmp (MiB, RAM-backed tmpfs)", allowed=at_least(16))
    file_mb: int = opt(4096, "largest file the agent may write (MiB, RLIMIT_FSIZE)", allowed=at_least(1))
    sandbox: str = opt("bwrap", "bwrap, or none (no isolation: for debugging only)", SANDBOX_CHOICES)
    cli_dir: str = opt("", "folder holding the CLI executable (e.g. fake CLIs); empty = search PATH")
    score_args: str = opt("", "extra scorer key=value options, space-separated (e.g. 'shapes=visible min_calls=2')")
    score: bool = opt(True, "score the solution (false: keep the agent's output only, for harness tests)")
    render: bool = opt(True, "render the transcript page (transcript.html) into the run folder")

    def effective_run_id(self) -> str:
        if self.run_id:
            return self.run_id
        raw = f"{self.harness}-{self.model or 'default'}-{self.effort}-{self.problem}-t{self.trial}"
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in raw)
