"""Which runs a leaderboard cell may count, and why the others are not counted.

A ranked cell holds runs that were all measured the same way: by one scorer version (a commit, or a
group of commits declared to time and check identically in scorer_versions.toml), with the counter
audits on, from a clean checkout, on every shape set (visible, held-out and property-drawn), and by a
real agent or the house kernel. A run that misses any of these keeps its run page and is listed under
"other runs" with the reasons. Run-level reasons are decided here from the result alone
(`run_reasons`); the version a board ranks is the one of its newest run that has no run-level reason
(`current_version`), so adding a run of a new scorer moves the whole board to it rather than mixing.

Harness tests (an agent CLI replaced by a fake or a probe, e.g. `claude · fake-house`) are their own
kind: never ranked, never a best run, never plotted; they have a page of their own.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

VERSIONS_FILE = Path(__file__).resolve().parent / "scorer_versions.toml"
# The harnesses' own end-to-end tests run fake CLIs (harnesses/fake/) and probes under these model names.
TEST_MODEL = re.compile(r"(fake|probe)([-_.].*)?", re.IGNORECASE)
HEX_COMMIT = re.compile(r"[0-9a-f]{7,40}")


@dataclass(frozen=True)
class ScorerVersion:
    name: str
    commits: tuple[str, ...]  # commit prefixes declared equivalent (a lone commit: itself)
    evidence: str


@lru_cache(maxsize=1)
def declared_versions() -> tuple[ScorerVersion, ...]:
    with VERSIONS_FILE.open("rb") as handle:
        entries = tomllib.load(handle).get("version", [])
    return tuple(
        ScorerVersion(e["name"], tuple(e["commits"]), " ".join(e.get("evidence", "").split())) for e in entries
    )


def scorer_commit(data: dict) -> str:
    """The scorer commit a result records, or "" when it recorded none or no real one ("HEAD")."""
    ceiling = data.get("ceiling")
    commit = ceiling.get("commit") if isinstance(ceiling, dict) else None
    return commit if isinstance(commit, str) and HEX_COMMIT.fullmatch(commit) else ""


def version_of(commit: str) -> str:
    """The declared version a commit belongs to, else the commit's short form; "" for no commit."""
    if not commit:
        return ""
    for version in declared_versions():
        if any(commit.startswith(prefix) for prefix in version.commits):
            return version.name
    return commit[:7]


def version_detail(name: str) -> ScorerVersion:
    for version in declared_versions():
        if version.name == name:
            return version
    return ScorerVersion(name, (name,), "")


def is_test_harness(agent) -> bool:
    """An agent run by the harness's own tests: a fake or probe CLI standing in for the real one."""
    if not isinstance(agent, dict):
        return False
    return any(isinstance(agent.get(key), str) and TEST_MODEL.fullmatch(agent[key]) for key in ("model", "harness"))


def run_reasons(data: dict) -> tuple[str, ...]:
    """Why a run cannot be ranked, whatever the board: each a short phrase, in the order they are checked."""
    reasons = []
    if is_test_harness(data.get("agent")):
        reasons.append("harness test (fake agent)")
    ceiling = data.get("ceiling") if isinstance(data.get("ceiling"), dict) else {}
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    if not scorer_commit(data):
        reasons.append("scorer commit not recorded")
    if ceiling.get("dirty") is not False:
        reasons.append(
            "scored from a modified checkout (dirty)" if ceiling.get("dirty") else "checkout state not recorded"
        )
    if config.get("audits") is not True:
        reasons.append("audits off (audits=false)" if config.get("audits") is False else "audits setting not recorded")
    if config.get("shapes", "all") != "all":
        reasons.append(f"not every shape set (shapes={config.get('shapes')})")
    return tuple(reasons)
