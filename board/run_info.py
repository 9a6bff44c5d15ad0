"""Everything a run page shows beyond the result itself: solution source, transcript, tokens, cost.

The solution is read from the run directory's solution.py, else from the path the result names
(relative to the repository) when its sha256 still matches the result's; a changed file is not
shown as if it had been scored. The transcript page is rendered by the viewer's library call from
the agent's `transcript` path or the run directory; tokens, cost and wall time come from the agent
metadata when it states them, else from the transcript.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .load import Run


@dataclass(frozen=True)
class RunFacts:
    tokens: int | None
    cost_usd: float | None
    wall_s: float | None
    transcript_page: str  # file name beside the run page, or ""
    transcript_error: str


def solution_source(run: Run, repo: Path) -> tuple[str, str, str]:
    """(source, shown path, note) of the scored solution; source is "" when it cannot be shown truthfully."""
    system = run.data["systems"][0]
    if run.run_dir and (run.run_dir / "solution.py").is_file():
        path = run.run_dir / "solution.py"
        return path.read_text(encoding="utf-8", errors="replace"), path.name, ""
    rel = system.get("path") or ""
    if not rel:
        return "", "", "the result names no solution file"
    path = Path(rel) if Path(rel).is_absolute() else repo / rel
    if not path.is_file():
        return "", rel, f"{rel} is not in this checkout"
    data = path.read_bytes()
    if system.get("sha256") and hashlib.sha256(data).hexdigest() != system["sha256"]:
        return "", rel, f"{rel} has changed since this run (sha256 differs), so it is not shown"
    return data.decode("utf-8", errors="replace"), rel, ""


def transcript_source(run: Run, repo: Path) -> Path | None:
    agent = run.data.get("agent") or {}
    if agent.get("transcript"):
        for base in (repo, run.path.parent, run.run_dir or run.path.parent):
            candidate = base / agent["transcript"]
            if candidate.exists():
                return candidate
    if run.run_dir and any(run.run_dir.glob("transcript.*")) or (run.run_dir and (run.run_dir / "native").is_dir()):
        return run.run_dir
    return None


def write_transcript(run: Run, repo: Path, out_path: Path) -> RunFacts:
    """Render the transcript page (if any) and gather tokens, cost and wall time."""
    agent = run.data.get("agent") or {}
    tokens = _int_tokens(agent.get("tokens"))
    cost = agent.get("cost_usd")
    wall = agent.get("wall_s")
    source = transcript_source(run, repo) if agent else None
    if source is None:
        return RunFacts(tokens, cost, wall, "", "")
    import viewer  # the viewer's library call; torch-free

    try:
        transcript = viewer.load_transcript(source)
        out_path.parent.mkdir(parents=True, exist_ok=True)
        title = f"{run.run_id}: transcript"
        out_path.write_text(
            viewer.render_transcript_html(transcript, run_dir=run.run_dir, title=title), encoding="utf-8"
        )
    except Exception as error:  # noqa: BLE001 - a transcript the viewer cannot read must not stop the site
        return RunFacts(tokens, cost, wall, "", f"{source}: {type(error).__name__}: {error}")
    tokens = tokens if tokens is not None else transcript.tokens.total  # None: not recorded
    cost = cost if cost is not None else transcript.cost_usd
    wall = wall if wall is not None else transcript.duration_s
    return RunFacts(tokens, cost, wall, out_path.name, "")


def _int_tokens(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, dict) and isinstance(value.get("total"), int):
        return value["total"]
    return None
