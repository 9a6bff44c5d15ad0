"""A corpus of corrupted result files, each made from a real committed H100 result by one corruption.

Shared by tests/scoring/test_result_checks.py (`python -m scoring.verify`) and tests/site (the site's
loader and build): every case names the field its issue must name and a phrase the issue must say.
The first three are what issue 20 found on the board: a score of 1.7, NaN, or the string "high".
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "results" / "h100_sxm" / "20261122T034242Z-fp8_gemm-house-a7e607.json"


@dataclass(frozen=True)
class Case:
    name: str
    corrupt: Callable[[dict], dict | str]  # the template -> the corrupted result (a str is written as is)
    field: str  # the dotted field an issue must name
    says: str  # a phrase of that text (problem or fix)


def _set(path: str, value):
    """A corruption that sets one dotted field (`systems[0].score.fraction`) to `value`."""
    def corrupt(data: dict) -> dict:
        *parents, last = _steps(path)
        node = data
        for step in parents:
            node = node[step]
        node[last] = value
        return data
    return corrupt


def _delete(path: str):
    def corrupt(data: dict) -> dict:
        *parents, last = _steps(path)
        node = data
        for step in parents:
            node = node[step]
        del node[last]
        return data
    return corrupt


def _steps(path: str) -> list:
    steps = []
    for part in path.split("."):
        name, _, index = part.partition("[")
        steps.append(name)
        if index:
            steps.append(int(index.rstrip("]")))
    return steps


def _both(value):
    """The solution's score and its top-level copy edited together, as a careless hand would."""
    def corrupt(data: dict) -> dict:
        data["systems"][0]["score"]["fraction"] = data["score"]["fraction"] = value
        return data
    return corrupt


def _faster_first_shape(data: dict) -> dict:
    """A shape's time, fraction, TFLOPS and GB/s edited consistently; the score left as it was."""
    shape = data["systems"][0]["shapes"][0]
    for key in ("fraction", "achieved_tflops", "achieved_gbps"):
        shape[key] *= 1.5
    shape["timing"]["median_ms"] /= 1.5
    return data


def _failed_audit(data: dict) -> dict:
    data["systems"][0]["audits"][0]["outcome"] = "failed (X20: bf16 tensor ops executed)"
    return data


def _truncated(data: dict) -> str:
    text = json.dumps(data, indent=1)
    return text[: len(text) // 2]


CASES = [
    Case("score_1_7", _both(1.7), "systems[0].score.fraction", "physically impossible"),
    Case("score_nan", _both(math.nan), "systems[0].score.fraction", "expected a finite number"),
    Case("score_string_high", _both("high"), "systems[0].score.fraction", "expected number"),
    Case("score_bool", _both(True), "systems[0].score.fraction", "expected number"),
    Case("score_infinity", _both(math.inf), "systems[0].score.fraction", "expected a finite number"),
    Case("score_negative", _both(-0.5), "systems[0].score.fraction", "below"),
    Case("top_level_score_only", _set("score.fraction", 0.9), "score.fraction", "a copy"),
    Case("geomean_mismatch", _both(0.6), "systems[0].score.fraction", "geomean"),
    Case("reference_line_geomean_mismatch", _set("systems[3].score.fraction", 0.99), "systems[3].score.fraction",
         "geomean"),
    Case("visible_fraction_mismatch", _set("systems[0].score.visible_fraction", 0.9),
         "systems[0].score.visible_fraction", "geomean"),
    Case("shape_fraction_negative", _set("systems[0].shapes[0].fraction", -0.2), "systems[0].shapes[0].fraction",
         "below"),
    Case("shape_fraction_above_one", _set("systems[0].shapes[0].fraction", 1.3), "systems[0].shapes[0].fraction",
         "physically impossible"),
    Case("shape_fraction_nan", _set("systems[0].shapes[1].fraction", math.nan), "systems[0].shapes[1].fraction",
         "finite"),
    Case("shape_fraction_not_from_its_timing", _set("systems[0].shapes[0].fraction", 0.7),
         "systems[0].shapes[0].fraction", "timing.median_ms"),
    Case("shape_tflops_not_from_its_timing", _set("systems[0].shapes[2].achieved_tflops", 1900.0),
         "systems[0].shapes[2].achieved_tflops", "timing.median_ms"),
    Case("shape_edited_but_score_not", _faster_first_shape, "systems[0].score.fraction", "geomean"),
    Case("unknown_system_status", _set("systems[0].status", "great"), "systems[0].status", "is not one of"),
    Case("unknown_shape_status", _set("systems[0].shapes[0].status", "ok"), "systems[0].shapes[0].status",
         "is not one of"),
    Case("failed_shape_but_passed_status", _set("systems[0].shapes[0].status", "incorrect"), "systems[0].status",
         "its shapes and audits give 'incorrect'"),
    Case("failed_audit_but_passed_status", _failed_audit, "systems[0].status", "give 'integrity'"),
    Case("unknown_shape_set", _set("systems[0].shapes[0].shape_set", "visble"), "systems[0].shapes[0].shape_set",
         "is not one of"),
    Case("timing_median_as_string", _set("systems[0].shapes[0].timing.median_ms", "0.1"),
         "systems[0].shapes[0].timing.median_ms", "expected number"),
    Case("timing_p90_as_list", _set("systems[0].shapes[1].timing.p90_ms", [0.2]),
         "systems[0].shapes[1].timing.p90_ms", "expected number"),
    Case("timing_median_zero", _set("systems[0].shapes[0].timing.median_ms", 0), "systems[0].shapes[0].timing.median_ms",
         "above 0"),
    Case("flops_as_float_string", _set("systems[0].shapes[0].flops", "1e12"), "systems[0].shapes[0].flops",
         "expected whole number"),
    Case("params_as_list", _set("systems[0].shapes[0].params", [1, 2]), "systems[0].shapes[0].params",
         "expected dict"),
    Case("missing_score", _delete("systems[0].score"), "systems[0].score", "is missing"),
    Case("missing_shape_status", _delete("systems[0].shapes[0].status"), "systems[0].shapes[0].status", "is missing"),
    Case("missing_shapes", _delete("systems[1].shapes"), "systems[1].shapes", "is missing"),
    Case("missing_peak_bandwidth", _delete("hardware.peak.bandwidth_gbps"), "hardware.peak.bandwidth_gbps",
         "is missing"),
    Case("zero_peak_tflops", _set("hardware.peak.tflops.fp8", 0.0), "hardware.peak.tflops.fp8", "above 0"),
    Case("unknown_profile", _set("hardware.profile", "GPU"), "hardware.profile", "is not one of"),
    Case("truncated_json", _truncated, "(file)", "not readable JSON"),
    Case("wrong_schema_version", _set("schema", "ceiling.result/2"), "schema", "expected 'ceiling.result/1'"),
    Case("not_an_object", lambda data: "[1, 2]", "(file)", "not an object"),
]


def template() -> dict:
    return json.loads(TEMPLATE.read_text())


def write_case(case: Case, folder: Path) -> Path:
    """`<folder>/corrupt-<name>.json`, its run id made unique so that a site build keeps every case apart."""
    data = copy.deepcopy(template())
    data["run_id"] = f"corrupt-{case.name}"
    corrupted = case.corrupt(data)
    path = folder / f"corrupt-{case.name}.json"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(corrupted if isinstance(corrupted, str) else json.dumps(corrupted, indent=1))
    return path
