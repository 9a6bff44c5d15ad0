"""The judgement of a re-scored kernelbench.com run as the site shows it: its verdict (a/b/c or rescore,
harnesses/kernelbench/verdicts.py) with its reason, their numbers beside ours (their_numbers.py), and, per
problem, their contract as encoded (their_contracts.toml) and the verdict counts; plus the legend of
verdicts and failure classes that the board and problem pages print.

Pure reading of the committed result: no torch, nothing recomputed but the counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from harnesses.kernelbench.their_contract import ContractError, TheirContract, load, their_peaks
from harnesses.kernelbench.their_numbers import TheirNumbers, their_numbers
from harnesses.kernelbench.verdicts import LEGEND as VERDICT_LEGEND, LETTERS, Verdict, verdict

# One sentence per failure class (scoring/failure_class.py), for the legend.
CLASS_LEGEND = {
    "forbidden_op": "the file used an operator or vendor library kernel our prompt forbids (X21).",
    "integrity": "an audit or timing rule failed (tampering, work outliving the timed stream).",
    "build_or_import": "the file or its C++/CUDA extension failed to build or import.",
    "timeout": "a shape (or the import) ran past its time limit.",
    "runtime_error": "an exception, a crash or a CUDA error on a shape.",
    "nan_inf": "the output held NaN or Inf.",
    "near_miss": "a few elements (at most 1 in 10,000) beyond our element-wise bound with the normwise error "
    "within ours: the numerics of a shortcut such as fp8 accumulation without promotion.",
    "wrong_output": "the output was wrong beyond our tolerance.",
    "rejected": "a fraction above the GPU's peak (the measurement or the peak table is wrong).",
}
SEVERITY_NOTE = (
    "A file's headline class is its most severe: a rule verdict, then a silent wrong answer (NaN/Inf, "
    "wrong output), then a loud failure (exception, timeout, build), then a near miss; within one, "
    "the class seen on a visible shape, then on more shapes. Every class of a file is listed on its "
    "run page."
)


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    numbers: TheirNumbers

    @property
    def letter(self) -> str:
        return self.verdict.letter

    @property
    def label(self) -> str:
        return {
            "a": "a: passes ours",
            "b": "b: passes theirs only",
            "c": "c: wrong inside theirs",
            "rescore": "needs re-score",
        }[self.verdict.letter]


def contracts() -> dict[str, TheirContract]:
    try:
        return load()
    except ContractError:
        return {}


def judge(data: dict) -> Judgement | None:
    """The judgement of a re-scored result, or None for another run or a problem without their contract."""
    agent = data.get("agent") if isinstance(data, dict) else None
    problem = (data.get("problem") or {}).get("name") if isinstance(data, dict) else None
    known = contracts()
    if not isinstance(agent, dict) or agent.get("rescored_from") != "kernelbench.com" or problem not in known:
        return None
    try:
        return Judgement(verdict(data, known[problem]), their_numbers(data, known[problem], their_peaks()))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # a result too old or too odd to judge: shown without a verdict


def verdict_counts(entries, provenance: dict) -> dict:
    """{"their_passes": n, "theirs": Counter, "all": Counter} over the re-scored runs of one problem: the
    counts over their passing files and over all files, side by side."""
    judged = [
        (r, provenance[r["run_id"]])
        for r in entries
        if r["run_id"] in provenance and getattr(provenance[r["run_id"]], "judgement", None) is not None
    ]
    theirs = [(r, p) for r, p in judged if p.their_correct]
    return {
        "their_passes": len(theirs),
        "files": len(judged),
        "letters": LETTERS,
        "theirs": Counter(p.judgement.letter for _, p in theirs),
        "all": Counter(p.judgement.letter for _, p in judged),
    }


def legend() -> dict:
    return {
        "verdicts": [(letter, VERDICT_LEGEND[letter]) for letter in LETTERS],
        "classes": CLASS_LEGEND,
        "severity": SEVERITY_NOTE,
        "peaks": their_peaks(),
        "contracts": contracts(),
    }
