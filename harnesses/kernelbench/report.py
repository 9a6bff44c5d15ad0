"""The re-scored kernelbench.com runs as a markdown table per problem: their verdict beside ours.

    python -m harnesses.kernelbench.report [RESULTS]        (default: results)
    python -m harnesses.kernelbench.report help             prints this (help, -h or --help anywhere)

Exit status: 0 printed, 2 a usage error (an option, more than one folder, a folder that does not exist).

Reads every result under RESULTS/<hardware>/ whose agent was re-scored from kernelbench.com (the newest
per published file), prints one table per problem and lines of counts: how many of their passes pass
here, the failure classes of the others (scoring/failure_class.py, headline class by severity, counted
over the same files as the headline: their passes), and the three verdicts (harnesses/kernelbench/
verdicts.py: a passes ours, b passes their contract only, c wrong inside theirs; rescore: not the code they
timed) over their passes and over all files.

Their fractions are of an H100 PCIe's peaks under their rubric; ours are of the peaks of the GPU that scored
the run (H100 SXM unless the cell names another, e.g. "passed 0.560 (H200 SXM)"). Neither is converted.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from harnesses.kernelbench.catalog import RESCORED_FROM
from harnesses.kernelbench.their_numbers import their_numbers
from harnesses.kernelbench.verdicts import LEGEND, LETTERS, verdict
from scoring.failure_class import reread_failure, tolerance_normwise
from scoring.options import wants_help

USUAL_HARDWARE = "h100_sxm"  # the peak row most re-scored runs were measured on; others are named in the cell


def rescored_results(results: Path) -> dict[str, dict]:
    """The newest result per published file (their sha256), read from results/<hardware>/*.json."""
    newest: dict[str, dict] = {}
    # Run ids start with the UTC time, so the later file wins whichever hardware folder holds it.
    for path in sorted(results.glob("*/*.json"), key=lambda p: (p.name, str(p))):
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        agent = data.get("agent") if isinstance(data, dict) else None
        if isinstance(agent, dict) and agent.get("rescored_from") == RESCORED_FROM:
            newest[agent["source"]["sha256"]] = data
    return newest


def _fraction(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def hardware_note(data: dict) -> str:
    """ " (H200 SXM)" when the run was measured on other than the usual GPU, else "": its fraction is of that
    GPU's peaks (hardware.peak in the result) and is shown as measured."""
    peak = (data.get("hardware") or {}).get("peak") or {}
    if peak.get("key", USUAL_HARDWARE) == USUAL_HARDWARE:
        return ""
    return f" ({peak.get('label') or peak['key']})"


def _shortened(detail: str, limit: int = 140) -> str:
    """The failure's detail cut at a word before `limit` characters (a table cell, not the whole story)."""
    detail = " ".join(detail.split())
    return detail if len(detail) <= limit else detail[:limit].rsplit(" ", 1)[0] + " ..."


def failure_of(data: dict) -> dict:
    """A run's recorded failure with its headline read again from its shapes (scoring/failure_class.py), so
    that results scored before a better headline existed read as well as new ones, as on the site. {} when
    it passed."""
    return reread_failure(data["systems"][0], tolerance_normwise(data["problem"])) or {}


def problem_table(runs: list[dict]) -> list[str]:
    rows = [
        "| agent | theirs (H100 PCIe, their rubric) | ours (status, score; H100 SXM unless named) | verdict | "
        "why not passed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for data in sorted(runs, key=lambda d: -(d["score"]["fraction"] or 0)):
        agent, system = data["agent"], data["systems"][0]
        published = agent.get("published") or {}
        theirs = _fraction(published.get("peak_fraction")) if published.get("correct") else "failed"
        recomputed = their_numbers(data).their_fraction_our_formula
        if recomputed is not None:
            theirs += f" ({recomputed:.3f} with our formula)"
        failure = failure_of(data)
        why = ""
        if failure:
            unseen = ", only on unseen shapes" if failure.get("unseen_only") else ""
            why = f"{failure['label']}{unseen}: {_shortened(failure.get('detail', ''))}".replace("|", "/")
        judged = verdict(data)
        rows.append(
            f"| {agent['harness']} / {agent['model']} [{agent.get('effort') or 'default'}] | {theirs} | "
            f"{system['status']} {_fraction(data['score']['fraction'])}{hardware_note(data)} | "
            f"{judged.letter}: {_shortened(judged.summary, 160).replace('|', '/')} | {why} |"
        )
    return rows


def verdict_counts(runs: list[dict]) -> str:
    """ "a 2, b 15, c 2, rescore 1" (every letter, zeros included, so two lines read side by side)."""
    counts = Counter(verdict(d).letter for d in runs)
    return ", ".join(f"{letter} {counts[letter]}" for letter in LETTERS)


def report(results: Path) -> str:
    by_problem: dict[str, list[dict]] = {}
    for data in rescored_results(results).values():
        by_problem.setdefault(data["problem"]["name"], []).append(data)
    out = (
        ["Verdicts: " + "; ".join(f"{letter}: {LEGEND[letter]}" for letter in LETTERS) + ".", ""] if by_problem else []
    )
    for problem in sorted(by_problem):
        runs = by_problem[problem]
        their_passes = [d for d in runs if (d["agent"].get("published") or {}).get("correct")]
        ours = sum(d["status"] == "passed" and verdict(d).letter == "a" for d in their_passes)
        # Counted over their passes, the population of the headline, and over all files, said so.
        classes = Counter(failure_of(d).get("class") for d in their_passes if d["status"] != "passed")
        all_classes = Counter(failure_of(d).get("class") for d in runs if d["status"] != "passed")
        elsewhere = Counter(hardware_note(d).strip(" ()") for d in runs if hardware_note(d))
        scored = f"{len(runs)} scored" + (
            f" ({', '.join(f'{n} on {hw}' for hw, n in sorted(elsewhere.items()))})" if elsewhere else ""
        )
        out += [
            f"### {problem}",
            "",
            f"{scored}; of their {len(their_passes)} passes, {ours} pass here (the code they timed); "
            f"their passes not passed here: {', '.join(f'{c} {n}' for c, n in classes.most_common()) or 'none'} "
            f"(all {len(runs)} files: {', '.join(f'{c} {n}' for c, n in all_classes.most_common()) or 'none'}).",
            "",
            f"Verdicts over their {len(their_passes)} passes: {verdict_counts(their_passes)}; "
            f"over all {len(runs)} files: {verdict_counts(runs)}.",
            "",
        ]
        out += problem_table(runs) + [""]
    return "\n".join(out) if out else "no re-scored results found"


def usage_problem(argv: list[str]) -> str | None:
    """What is wrong with the command line, or None: it takes at most one argument, an existing folder."""
    if argv and argv[0].startswith("-"):
        return f"{argv[0]}: not an option; the only argument is the results folder"
    if len(argv) > 1:
        return f"one results folder, not {len(argv)}"
    if argv and not Path(argv[0]).is_dir():
        return f"{argv[0]}: no such folder; give the results root (default results)"
    return None


def main(argv: list[str]) -> int:
    if wants_help(argv):
        print(__doc__.strip())
        return 0
    problem = usage_problem(argv)
    if problem:
        print(f"error: {problem} (python -m harnesses.kernelbench.report help)", file=sys.stderr)
        return 2
    print(report(Path(argv[0] if argv else "results")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
