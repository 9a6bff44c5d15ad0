"""What the site shows about where a run came from and why it failed: re-scored runs' provenance, and
the failure class of a system that did not pass.

A re-scored run is an agent's solution published elsewhere (kernelbench.com) and scored by our
scorer: its `agent` carries `rescored_from`, `source` (the repository, commit and path of the
published file) and `published` (their verdict). scoring/result_fields.py has checked every one of
these fields before a page sees them; the link is built here only from values that match the same
patterns again (https://github.com/OWNER/NAME/blob/COMMIT/PATH), so no other scheme or host can
reach a page. A system's `failure` (scoring/failure_class.py) is shown by its class's label; results
older than the field have none, and nothing is derived for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import quote

from scoring.failure_class import LABELS as FAILURE_LABELS
from scoring.result_fields import GIT_COMMIT, GITHUB_REPOSITORY, repository_path_ok


@dataclass(frozen=True)
class Rescored:
    origin: str  # the site the run was published on: "kernelbench.com"
    url: str  # the exact published file at the recorded commit
    path: str
    commit: str
    their_fraction: float | None
    their_correct: bool | None
    their_hardware: str  # "H100 PCIe"
    their_verdict: str  # their annotation verdict, or ""
    their_failure: str  # their failure reason, or ""
    their_label: str  # their board's label for the agent, or ""
    their_run_id: str
    judgement: object = None  # board/rescored_judgement.Judgement: the verdict and their numbers, where judged

    @property
    def badge_text(self) -> str:
        return f"re-scored from {self.origin}"

    @property
    def theirs(self) -> str:
        """Their published result, labelled with their hardware and rubric."""
        if self.their_fraction is not None:
            shown = f"{self.their_fraction:.4f}"
        elif self.their_correct is False:
            shown = "failed"
        else:
            shown = "no fraction published"
        return f"theirs: {shown} on {self.their_hardware} (their rubric)"


def github_url(repository: str, commit: str, path: str) -> str | None:
    """https://github.com/OWNER/NAME/blob/COMMIT/PATH, or None when a part is not the validated form."""
    if not (
        isinstance(repository, str)
        and GITHUB_REPOSITORY.fullmatch(repository)
        and isinstance(commit, str)
        and GIT_COMMIT.fullmatch(commit)
        and repository_path_ok(path)
    ):
        return None
    owner_name = repository.split("/", 1)[1]
    return f"https://github.com/{owner_name}/blob/{commit}/{quote(path, safe='/')}"


def rescored(agent) -> Rescored | None:
    """The provenance of a re-scored run, or None for any other run (or one whose link would not be sound)."""
    if not isinstance(agent, dict) or not isinstance(agent.get("rescored_from"), str):
        return None
    source, published = agent.get("source"), agent.get("published")
    if not isinstance(source, dict) or not isinstance(published, dict):
        return None
    url = github_url(source.get("repository"), source.get("commit"), source.get("path"))
    if url is None:
        return None
    fraction = published.get("peak_fraction")
    ok = isinstance(fraction, (int, float)) and not isinstance(fraction, bool) and math.isfinite(fraction)
    correct = published.get("correct")
    return Rescored(
        origin=agent["rescored_from"],
        url=url,
        path=source["path"],
        commit=source["commit"],
        their_fraction=float(fraction) if ok else None,
        their_correct=correct if isinstance(correct, bool) else None,
        their_hardware=_hardware(published.get("hardware")),
        their_verdict=_text(published.get("annotation_verdict")),
        their_failure=_text(published.get("failure_reason")),
        their_label=_text(published.get("board_label")),
        their_run_id=_text(source.get("run_id")),
    )


def is_rescored(agent) -> bool:
    return isinstance(agent, dict) and agent.get("rescored_from") is not None


def failure_label(failure) -> str:
    """ "near miss", "wrong output (only on unseen shapes)", ...; "" for a pass or a result without the field."""
    if not isinstance(failure, dict) or failure.get("class") not in FAILURE_LABELS:
        return ""
    label = FAILURE_LABELS[failure["class"]]
    return label + " (only on unseen shapes)" if failure.get("unseen_only") is True else label


def _hardware(value) -> str:
    text = value.strip() if isinstance(value, str) else ""
    return text.removeprefix("NVIDIA ").strip() or "their hardware"


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def origins(entries, provenance: dict) -> str:
    """The sites a list of re-scored runs was published on ("kernelbench.com"), for headings."""
    names = sorted({provenance[r["run_id"]].origin for r in entries if r["run_id"] in provenance})
    return " and ".join(names) or "published runs"
