"""Whether a scoring result is what a corpus case expects on this profile. Torch-free.

Compared: the solution's system status, the per-shape statuses the case declares, the text its detail must
contain (searched in every shape's detail, the import detail and every failed audit's outcome), and the most its
score may reach (a time forger that passes must not have gained by its forgery). A house kernel
must also pass every shape and fail no audit. `class_named` reports whether the case's class id appears in the
observed details: informative, since a wrong output is reported with the classes the checker cannot tell apart
(e.g. "X01/X24", "X02/X03/X13") and not with the adversary's intent.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.corpus.cases import Case, Expectation, allows


@dataclass(frozen=True)
class Observed:
    status: str
    shapes: dict[str, str]
    details: list[str]  # each shape's detail and the import detail, first lines, non-empty
    failed_audits: list[str]
    unverified_audits: list[str]

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "shapes": dict(self.shapes),
            "details": list(self.details),
            "failed_audits": list(self.failed_audits),
            "unverified_audits": list(self.unverified_audits),
        }


def observe(result: dict) -> Observed:
    system = result["systems"][0]
    texts = [s.get("detail") or "" for s in system["shapes"]] + [system.get("import_detail") or ""]
    details = list(dict.fromkeys(t.strip().splitlines()[0] for t in texts if t.strip()))  # ordered, no repeats
    outcomes = [(a["id"], a["outcome"]) for a in system.get("audits", [])]
    return Observed(
        system["status"],
        {s["name"]: s["status"] for s in system["shapes"]},
        details,
        [f"{i}: {o}" for i, o in outcomes if o.startswith("failed")],
        [f"{i}: {o}" for i, o in outcomes if o.startswith("not verified")],
    )


def mismatches(case: Case, expected: Expectation, result: dict) -> list[str]:
    """Every way `result` differs from `expected` (empty: as expected)."""
    observed = observe(result)
    found = []
    if not allows(expected.status, observed.status):
        found.append(f"status {observed.status!r}, expected {_shown(expected.status)}")
    for name, status in expected.shapes.items():
        if name not in observed.shapes:
            found.append(f"shape {name!r} was not scored (scored: {', '.join(observed.shapes)})")
        elif not allows(status, observed.shapes[name]):
            found.append(f"shape {name!r} is {observed.shapes[name]!r}, expected {_shown(status)}")
    if expected.detail:
        everything = [s.get("detail") or "" for s in result["systems"][0]["shapes"]]
        everything.append(result["systems"][0].get("import_detail") or "")
        everything += observed.failed_audits  # "tensor_precision: failed (X20: ...)"
        if not any(expected.detail in text for text in everything):
            found.append(f"no detail contains {expected.detail!r}")
    if expected.fraction_at_most is not None:
        fraction = (result["systems"][0].get("score") or {}).get("fraction")
        if fraction is None or fraction > expected.fraction_at_most:
            found.append(f"score {fraction}, expected at most {expected.fraction_at_most} (a gain)")
    if case.kind == "house":
        found += [f"shape {n!r} is {s!r}" for n, s in observed.shapes.items() if s != "passed"]
        found += [f"audit {a}" for a in observed.failed_audits]
    return found


def _shown(status) -> str:
    return " or ".join(repr(s) for s in status) if isinstance(status, tuple) else repr(status)


def class_named(case: Case, result: dict) -> bool | None:
    """Whether the case's class id appears in any observed detail or failed audit (an X20 precision
    downcast is named by the tensor_precision audit, not by a shape); None when the case names no class."""
    if not case.class_id:
        return None
    observed = observe(result)
    return any(case.class_id in text for text in observed.details + observed.failed_audits)
