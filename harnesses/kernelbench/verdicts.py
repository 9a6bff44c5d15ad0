"""Three verdicts for a re-scored kernelbench.com file, from the per-shape evidence of its result.

  a  passes our full contract.
  b  passes every shape and input inside *their* contract (harnesses/kernelbench/their_contracts.toml) and
     fails ours; the reasons are named (their tolerance admits the error, an operator they allowed, a shape
     outside their contract, ...).
  c  wrong inside their own contract: a shape their contract covers fails their own bar (error beyond their
     tolerance, NaN/Inf, an exception, a timeout, an operator on their own forbidden list); the shape and
     the error are named, and so is an input their check never drew, where that is what broke it.
  rescore  the result does not judge the code kernelbench.com timed: the file looked for CUTLASS where the
     scorer did not offer it and fell back (harnesses/kernelbench/not_their_code.toml); it needs a GPU
     re-score with the CUTLASS lookup of harnesses/import_kernelbench.py, and is not counted as a pass.

Only evidence committed in the result is read: statuses, check statistics (max_abs_err against their
absolute tolerance), failure details, the shapes' parameters. A failure whose evidence cannot show it passes
their bar counts against the file (c), and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harnesses.kernelbench.fallbacks import not_their_code
from harnesses.kernelbench.their_contract import TheirContract, load
from scoring.failure_class import classes_by_severity, headline, shape_class, tolerance_normwise

LETTERS = ("a", "b", "c", "rescore")
LEGEND = {
    "a": "passes our full contract",
    "b": "passes everything inside kernelbench.com's own contract (shapes, tolerance, allowed operators) "
    "and fails ours, for the reason named",
    "c": "wrong inside kernelbench.com's own contract: a shape their contract covers fails their own bar "
    "(the shape and the error are named)",
    "rescore": "not the code kernelbench.com timed (its CUTLASS path was not built here): needs a GPU re-score, "
    "not counted as a pass",
}
# A static-audit refusal names the operator and how the file wrote it: "names forbidden operator 'sort' (out.sort)".
NAMED_OP = re.compile(r"names forbidden operator '([\w.]+)' \(([\w.]+)\)")
CALLED_OP = re.compile(r"forbidden operator aten::(\w+)")


@dataclass(frozen=True)
class Verdict:
    letter: str
    reasons: tuple[str, ...] = ()  # b: why it fails ours though it passes theirs; c/rescore: what is wrong
    shape: str = ""  # c: the shape inside their contract that fails
    error: str = ""  # c: that shape's error, as recorded
    unseen_input: str = ""  # c: an input their check never drew that this shape has
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def summary(self) -> str:
        if self.letter == "a":
            return LEGEND["a"]
        if self.letter == "c":
            unseen = f" (on {self.unseen_input})" if self.unseen_input else ""
            return f"wrong inside their contract at {self.shape}{unseen}: {self.error}"
        return "; ".join(self.reasons)


def on_their_forbidden_list(detail: str, contract: TheirContract) -> str:
    """The entry of their forbidden list that a forbidden-operator detail names, or "". A name the file
    qualified with its own module (`_ext.topk`) is its own function, not theirs."""
    for match in NAMED_OP.finditer(detail):
        name, written = match.groups()
        qualifier = written.rsplit(".", 1)[0] if "." in written else ""
        for entry in contract.forbidden:
            entry_module, _, entry_name = entry.rpartition(".")
            if written == entry or (
                name == entry_name
                and entry_module == "Tensor"
                and qualifier
                and not qualifier.startswith("_")
                and qualifier not in ("torch", "F")
            ):
                return entry
    for op in CALLED_OP.findall(detail):
        for entry in contract.forbidden:
            if entry in (f"torch.{op}", f"torch.ops.aten.{op}"):
                return entry
    return ""


def _excuse(cls: str, shape: dict, contract: TheirContract, our_bound: float | None) -> str | None:
    """Why a failure on a shape inside their contract passes their bar (a reason for b), or None (c)."""
    detail = shape.get("detail") or ""
    if cls == "forbidden_op":
        entry = on_their_forbidden_list(detail, contract)
        if entry:
            return None
        vendor = (
            "CUTLASS"
            if "cutlass" in detail.lower()
            else ("cuBLAS" if "xmma" in detail or "gemm" in detail.lower() else "")
        )
        what = f"{vendor} kernels" if vendor and "vendor library" in detail else _operator(detail)
        return f"forbidden here, allowed there: {what}"
    if cls in ("near_miss", "wrong_output"):
        check = shape.get("check") or {}
        if contract.within_tolerance(check.get("max_abs_err"), check.get("max_rel_err")):
            return f"within their tolerance ({contract.atol:g} abs/rel), beyond ours"
        return None
    if cls == "integrity":
        return "our timing-integrity rule (X10: work outliving the timed stream); their benchmark has none"
    if cls == "rejected":
        return "our roofline check (a fraction above the peak)"
    return None  # nan_inf, runtime_error, timeout, build_or_import: wrong on their own terms


def _operator(detail: str) -> str:
    named = NAMED_OP.search(detail)
    if named:
        return named.group(2)
    called = CALLED_OP.search(detail)
    return f"aten::{called.group(1)}" if called else headline(detail, 80)


def verdict(data: dict, contract: TheirContract | None = None) -> Verdict:
    """The verdict of one re-scored result (a result file's JSON)."""
    problem = data["problem"]["name"]
    contract = contract or load()[problem]
    fallback = not_their_code(data)
    if fallback:
        return Verdict("rescore", (fallback,))
    system = data["systems"][0]
    if system.get("status") == "passed":
        return Verdict("a")
    bound = tolerance_normwise(data.get("problem"))
    shapes = system.get("shapes") or []
    if not shapes or all(shape_class(s, bound) is None for s in shapes):
        # Nothing failed per shape: an audit alone (our rule), or a failure with no per-shape evidence
        # (an import that failed: wrong on their terms too, since their check imports the same file).
        audits = [a for a in system.get("audits", []) if str(a.get("outcome", "")).startswith("failed")]
        if audits and system.get("status") == "integrity":
            return Verdict("b", tuple(f"our audit: {headline(a['outcome'])}" for a in audits))
        recorded = system.get("failure") or {}
        detail = headline(system.get("import_detail") or recorded.get("detail") or system.get("status") or "")
        return Verdict(
            "c",
            ("no per-shape evidence: the failure counts against the file",),
            shape="(import)" if system.get("status") == "import_error" else "(no shape recorded)",
            error=detail,
        )
    reasons: dict[str, list[str]] = {}  # reason -> the shapes (or values) it covers, in order
    inside_failures: dict[str, str] = {}  # shape name -> class, failures their own bar does not excuse
    by_name = {s["name"]: s for s in shapes}
    for s in shapes:
        cls = shape_class(s, bound)
        if cls is None:
            continue
        outside = contract.outside(s.get("params") or {})
        if outside:
            for rule, value in outside:
                reasons.setdefault(f"shapes outside their contract ({rule.label})", []).append(value)
            continue
        excuse = _excuse(cls, s, contract, bound)
        if excuse:
            reasons.setdefault(excuse, []).append(s["name"])
        else:
            inside_failures[s["name"]] = cls
    if inside_failures:
        sets = {s["name"]: s.get("shape_set") for s in shapes}
        worst_class, worst_shapes = next(iter(classes_by_severity(inside_failures, sets).items()))
        worst = by_name[worst_shapes[0]]
        notes = [f"{len(inside_failures)} shape(s) inside their contract fail: {', '.join(sorted(inside_failures))}"]
        if worst_class == "near_miss":  # within our normwise bound: their element-wise check may still pass it
            notes.append(
                f"a near miss: its recorded statistics cannot show every element within their "
                f"{contract.atol:g} abs/rel (their check might pass it)"
            )
        return Verdict(
            "c",
            _reason_lines(reasons),
            shape=worst["name"],
            error=headline(worst.get("detail") or worst_class),
            unseen_input=contract.unseen_input(worst.get("params") or {}),
            notes=tuple(notes),
        )
    own_failure = (data.get("agent") or {}).get("published") or {}
    notes = (
        ()
        if own_failure.get("correct")
        else (
            "their own check failed this file"
            + (f" ({own_failure['failure_reason']})" if own_failure.get("failure_reason") else "")
            + ": on shapes of theirs that ours do not include",
        )
    )
    return Verdict("b", _reason_lines(reasons), notes=notes)


def _reason_lines(reasons: dict[str, list[str]]) -> tuple[str, ...]:
    """One line per reason: "within their tolerance (0.2 abs/rel), beyond ours: square_8192, decode_m16"."""
    return tuple(f"{reason}: {', '.join(dict.fromkeys(where))}" for reason, where in reasons.items())
