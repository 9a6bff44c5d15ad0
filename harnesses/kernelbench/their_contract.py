"""kernelbench.com's contract per problem (their_contracts.toml), and whether it covers one of our shapes.

A contract holds what their problem files state: their tolerance (abs/rel), their forbidden list, what
they allowed that we forbid, their shapes, the inputs their check drew, and rules that say which of our
shapes their contract covers (the TOML's header gives the one reading rule for all problems). The verdicts
(harnesses/kernelbench/verdicts.py) judge a file inside this contract from its per-shape evidence.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

CONTRACTS_FILE = Path(__file__).resolve().parent / "their_contracts.toml"
SOURCE_COMMIT = "c7d92211851a18fdba173544f703436f4032b350"
SOURCE_FOLDER = "benchmarks/hard/problems-h100"
RULE_KINDS = ("in_set", "multiple_of")


class ContractError(ValueError):
    """their_contracts.toml is not readable as contracts; the message names the file, the field and the fix."""


@dataclass(frozen=True)
class ShapeRule:
    kind: str  # in_set: the parameter is one of `values`; multiple_of: a multiple of values[0]
    param: str
    values: tuple[int, ...]
    why: str

    @property
    def label(self) -> str:
        """The rule as a reader reads it: "T a multiple of 64", "G in {4, 8}"."""
        if self.kind == "multiple_of":
            return f"{self.param} a multiple of {self.values[0]}"
        return f"{self.param} in {{{', '.join(map(str, self.values))}}}"

    def breaks(self, params: dict) -> str | None:
        """The value that breaks this rule ("T = 10000"), or None when the shape keeps it."""
        value = params.get(self.param)
        if value is None:
            return None  # a shape without this parameter: nothing to judge
        if (self.kind == "in_set" and value not in self.values) or (
            self.kind == "multiple_of" and value % self.values[0]
        ):
            return f"{self.param} = {value}"
        return None


@dataclass(frozen=True)
class UnseenInput:
    param: str
    values: tuple[int, ...]
    note: str


@dataclass(frozen=True)
class TheirContract:
    problem: str  # ours
    their_problem: str
    atol: float
    rtol: float
    tolerance_source: str
    forbidden: tuple[str, ...]
    allowed_there: str
    their_shapes: tuple[dict, ...]
    inputs: str
    rules: tuple[ShapeRule, ...]
    unseen_inputs: tuple[UnseenInput, ...] = ()
    flops_formula: str = ""
    our_flops_formula: str = ""
    flops_note: str = ""
    regime: str = "compute"  # their fraction is of peak TFLOPS (compute) or of peak GB/s (memory)
    peak_key: str = "bf16"

    @property
    def sources(self) -> tuple[str, ...]:
        folder = f"{SOURCE_FOLDER}/{self.their_problem}"
        return tuple(f"{folder}/{name}" for name in ("problem.yaml", "shapes.py", "PROMPT.txt"))

    def outside(self, params: dict) -> list[tuple[ShapeRule, str]]:
        """Every rule a shape of ours breaks, with the breaking value; [] when their contract covers it."""
        return [(rule, value) for rule in self.rules if (value := rule.breaks(params))]

    def unseen_input(self, params: dict) -> str:
        """The note on inputs their check never drew that this shape has, or ""."""
        return "; ".join(u.note for u in self.unseen_inputs if params.get(u.param) in u.values)

    def within_tolerance(self, max_abs_err: float | None, max_rel_err: float | None = None) -> bool:
        """True when the evidence shows every element within their bound |out - ref| <= atol + rtol |ref|:
        the largest absolute error within atol, or the largest relative error within rtol (either term
        alone admits every element). False where neither shows it (the check may still have passed theirs)."""

        def within(value, bound):
            return isinstance(value, (int, float)) and value == value and value <= bound

        return within(max_abs_err, self.atol) or within(max_rel_err, self.rtol)


def _field(table: dict, where: str, key: str, kind, default=None):
    value = table.get(key, default)
    if value is None or not isinstance(value, kind) or isinstance(value, bool):
        expected = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise ContractError(
            f"{CONTRACTS_FILE}: [{where}] field '{key}' is missing or not a {expected}; "
            f"add it (see the header of the file for what each field means)"
        )
    return value


def _rule(entry, where: str) -> ShapeRule:
    if not isinstance(entry, dict):
        raise ContractError(
            f"{CONTRACTS_FILE}: [{where}] a rule is not a table; write it as "
            "{kind = \"in_set\", param = \"G\", values = [4, 8], why = \"...\"}"
        )
    kind = _field(entry, where + ".rules", "kind", str)
    if kind not in RULE_KINDS:
        raise ContractError(f"{CONTRACTS_FILE}: [{where}.rules] kind '{kind}' is not one of {', '.join(RULE_KINDS)}")
    values = _field(entry, where + ".rules", "values", list)
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ContractError(f"{CONTRACTS_FILE}: [{where}.rules] values must be a non-empty list of integers")
    return ShapeRule(
        kind, _field(entry, where + ".rules", "param", str), tuple(values), _field(entry, where + ".rules", "why", str)
    )


@dataclass(frozen=True)
class TheirPeaks:
    label: str
    source: str
    bandwidth_gbps: float
    tflops: dict

    def of(self, contract: TheirContract) -> str:
        """The peak their fraction of a problem is of: "756 bf16 TFLOPS (H100 PCIe)"."""
        if contract.regime == "memory":
            return f"{self.bandwidth_gbps:,.0f} GB/s ({self.label})"
        return f"{self.tflops[contract.peak_key]:,.0f} {contract.peak_key} TFLOPS ({self.label})"


def their_peaks(path: Path = CONTRACTS_FILE) -> TheirPeaks:
    table = tomllib.loads(path.read_text()).get("their_peaks")
    if not isinstance(table, dict):
        raise ContractError(
            f"{path}: [their_peaks] missing; add their GPU's peaks (label, source, bandwidth_gbps, tflops)"
        )
    return TheirPeaks(
        _field(table, "their_peaks", "label", str),
        _field(table, "their_peaks", "source", str),
        float(_field(table, "their_peaks", "bandwidth_gbps", (int, float))),
        dict(_field(table, "their_peaks", "tflops", dict)),
    )


def parse(data: dict) -> dict[str, TheirContract]:
    contracts = {}
    for problem, table in data.items():
        if problem == "their_peaks":
            continue
        if not isinstance(table, dict):
            raise ContractError(f"{CONTRACTS_FILE}: '{problem}' is not a table; write it as [{problem}]")
        unseen = tuple(
            UnseenInput(
                _field(u, problem + ".unseen_input", "param", str),
                tuple(_field(u, problem + ".unseen_input", "values", list)),
                _field(u, problem + ".unseen_input", "note", str),
            )
            for u in table.get("unseen_input", [])
        )
        contracts[problem] = TheirContract(
            problem=problem,
            their_problem=_field(table, problem, "their_problem", str),
            atol=float(_field(table, problem, "atol", (int, float))),
            rtol=float(_field(table, problem, "rtol", (int, float))),
            tolerance_source=_field(table, problem, "tolerance_source", str),
            forbidden=tuple(_field(table, problem, "forbidden", list)),
            allowed_there=_field(table, problem, "allowed_there", str),
            their_shapes=tuple(_field(table, problem, "their_shapes", list)),
            inputs=_field(table, problem, "inputs", str),
            rules=tuple(_rule(r, problem) for r in _field(table, problem, "rules", list)),
            unseen_inputs=unseen,
            flops_formula=table.get("flops_formula", ""),
            our_flops_formula=table.get("our_flops_formula", ""),
            flops_note=table.get("flops_note", ""),
            regime=_field(table, problem, "regime", str),
            peak_key=_field(table, problem, "peak_key", str),
        )
    return contracts


def load(path: Path = CONTRACTS_FILE) -> dict[str, TheirContract]:
    """Every problem's contract, keyed by our problem name."""
    try:
        return parse(tomllib.loads(path.read_text()))
    except tomllib.TOMLDecodeError as exc:
        raise ContractError(f"{path}: not valid TOML ({exc}); fix the line it names") from None
