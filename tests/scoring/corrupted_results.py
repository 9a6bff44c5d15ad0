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


# A re-scored run's agent object as harnesses/import_kernelbench.py writes it (docs/results.md).
RESCORED_AGENT = {
    "harness": "codex",
    "model": "gpt-5.5",
    "effort": "xhigh",
    "run_date": "2026-06-18 04:17:54",
    "rescored_from": "kernelbench.com",
    "source": {
        "repository": "github.com/Infatoshi/kernelbench.com",
        "commit": "0123456789abcdef0123456789abcdef01234567",
        "path": "public/runs/h100/20260618_041754_codex_gpt-5.5_01_fp8_gemm_solution.py.txt",
        "sha256": "ab" * 32,
        "run_id": "20260618_041754_codex_gpt-5.5_01_fp8_gemm",
        "problem": "01_fp8_gemm",
        "deck": "h100",
        "license": "MIT (benchmarks/hard)",
    },
    "published": {
        "correct": True,
        "peak_fraction": 0.2445,
        "annotation_verdict": "clean",
        "hardware": "NVIDIA H100 PCIe",
        "board_label": "codex/gpt-5.5 [xhigh]",
        "failure_reason": None,
        "elapsed_seconds": 7052,
        "output_tokens": 341185,
    },
    "adapter": {"path": "harnesses/kernelbench/adapters/fp8_gemm.py", "sha256": "cd" * 32, "per_call_glue": "none"},
}


def _rescored(path: str, value):
    """A re-scored run (RESCORED_AGENT) with one of its agent fields set to `value` (`DELETE` deletes it)."""

    def corrupt(data: dict) -> dict:
        data["agent"] = copy.deepcopy(RESCORED_AGENT)
        return _delete(path)(data) if value is DELETE else _set(path, value)(data)

    return corrupt


def _failure(**fields):
    """The solution marked failed (a failing shape) with a `failure` object whose fields are then edited."""

    def corrupt(data: dict) -> dict:
        from scoring.result import geomean_score, system_status

        solution = data["systems"][0]
        solution["shapes"][0]["status"] = "incorrect"
        solution["status"] = data["status"] = system_status(solution["shapes"], solution["audits"])
        solution["score"] = data["score"] = geomean_score(solution["shapes"], solution["status"])
        solution["failure"] = dict(
            {
                "class": "wrong_output",
                "label": "wrong output",
                "shapes": [solution["shapes"][0]["name"]],
                "unseen_only": False,
                "detail": "max abs err 3.1",
            },
            **fields,
        )
        return data

    return corrupt


DELETE = object()


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
    Case(
        "reference_line_geomean_mismatch",
        _set("systems[3].score.fraction", 0.99),
        "systems[3].score.fraction",
        "geomean",
    ),
    Case(
        "visible_fraction_mismatch",
        _set("systems[0].score.visible_fraction", 0.9),
        "systems[0].score.visible_fraction",
        "geomean",
    ),
    Case(
        "shape_fraction_negative", _set("systems[0].shapes[0].fraction", -0.2), "systems[0].shapes[0].fraction", "below"
    ),
    Case(
        "shape_fraction_above_one",
        _set("systems[0].shapes[0].fraction", 1.3),
        "systems[0].shapes[0].fraction",
        "physically impossible",
    ),
    Case(
        "shape_fraction_nan", _set("systems[0].shapes[1].fraction", math.nan), "systems[0].shapes[1].fraction", "finite"
    ),
    Case(
        "shape_fraction_not_from_its_timing",
        _set("systems[0].shapes[0].fraction", 0.7),
        "systems[0].shapes[0].fraction",
        "timing.median_ms",
    ),
    Case(
        "shape_tflops_not_from_its_timing",
        _set("systems[0].shapes[2].achieved_tflops", 1900.0),
        "systems[0].shapes[2].achieved_tflops",
        "timing.median_ms",
    ),
    Case("shape_edited_but_score_not", _faster_first_shape, "systems[0].score.fraction", "geomean"),
    Case("unknown_system_status", _set("systems[0].status", "great"), "systems[0].status", "is not one of"),
    Case(
        "unknown_shape_status",
        _set("systems[0].shapes[0].status", "ok"),
        "systems[0].shapes[0].status",
        "is not one of",
    ),
    Case(
        "failed_shape_but_passed_status",
        _set("systems[0].shapes[0].status", "incorrect"),
        "systems[0].status",
        "its shapes and audits give 'incorrect'",
    ),
    Case("failed_audit_but_passed_status", _failed_audit, "systems[0].status", "give 'integrity'"),
    Case(
        "unknown_shape_set",
        _set("systems[0].shapes[0].shape_set", "visble"),
        "systems[0].shapes[0].shape_set",
        "is not one of",
    ),
    Case(
        "timing_median_as_string",
        _set("systems[0].shapes[0].timing.median_ms", "0.1"),
        "systems[0].shapes[0].timing.median_ms",
        "expected number",
    ),
    Case(
        "timing_p90_as_list",
        _set("systems[0].shapes[1].timing.p90_ms", [0.2]),
        "systems[0].shapes[1].timing.p90_ms",
        "expected number",
    ),
    Case(
        "timing_median_zero",
        _set("systems[0].shapes[0].timing.median_ms", 0),
        "systems[0].shapes[0].timing.median_ms",
        "above 0",
    ),
    Case(
        "flops_as_float_string",
        _set("systems[0].shapes[0].flops", "1e12"),
        "systems[0].shapes[0].flops",
        "expected whole number",
    ),
    Case("params_as_list", _set("systems[0].shapes[0].params", [1, 2]), "systems[0].shapes[0].params", "expected dict"),
    Case("missing_score", _delete("systems[0].score"), "systems[0].score", "is missing"),
    Case("missing_shape_status", _delete("systems[0].shapes[0].status"), "systems[0].shapes[0].status", "is missing"),
    Case("missing_shapes", _delete("systems[1].shapes"), "systems[1].shapes", "is missing"),
    Case(
        "missing_peak_bandwidth", _delete("hardware.peak.bandwidth_gbps"), "hardware.peak.bandwidth_gbps", "is missing"
    ),
    Case("zero_peak_tflops", _set("hardware.peak.tflops.fp8", 0.0), "hardware.peak.tflops.fp8", "above 0"),
    Case("unknown_profile", _set("hardware.profile", "GPU"), "hardware.profile", "is not one of"),
    Case("truncated_json", _truncated, "(file)", "not readable JSON"),
    Case("wrong_schema_version", _set("schema", "ceiling.result/2"), "schema", "expected 'ceiling.result/1'"),
    Case("not_an_object", lambda data: "[1, 2]", "(file)", "not an object"),
    # A re-scored run's provenance and published verdict: the site links to the file and shows their fraction.
    Case(
        "rescored_link_to_another_host",
        _rescored("agent.source.repository", "evil.example/x/y"),
        "agent.source.repository",
        "github.com/OWNER/NAME",
    ),
    Case(
        "rescored_link_with_a_scheme",
        _rescored("agent.source.repository", "https://github.com/a/b"),
        "agent.source.repository",
        "github.com/OWNER/NAME",
    ),
    Case(
        "rescored_path_climbs_out",
        _rescored("agent.source.path", "public/../../etc/passwd"),
        "agent.source.path",
        "no '..'",
    ),
    Case(
        "rescored_path_javascript",
        _rescored("agent.source.path", "javascript:alert(1)"),
        "agent.source.path",
        "relative to the repository root",
    ),
    Case(
        "rescored_commit_unknown",
        _rescored("agent.source.commit", "unknown (not a git work tree)"),
        "agent.source.commit",
        "40-hex-digit",
    ),
    Case("rescored_source_missing", _rescored("agent.source", DELETE), "agent.source", "expected an object"),
    Case(
        "rescored_fraction_string",
        _rescored("agent.published.peak_fraction", "0.2445"),
        "agent.published.peak_fraction",
        "finite number in 0..1",
    ),
    Case(
        "rescored_fraction_nan",
        _rescored("agent.published.peak_fraction", math.nan),
        "agent.published.peak_fraction",
        "finite number in 0..1",
    ),
    Case(
        "rescored_fraction_above_one",
        _rescored("agent.published.peak_fraction", 3.5),
        "agent.published.peak_fraction",
        "finite number in 0..1",
    ),
    Case(
        "rescored_correct_as_string",
        _rescored("agent.published.correct", "yes"),
        "agent.published.correct",
        "true, false or null",
    ),
    Case(
        "rescored_hardware_missing",
        _rescored("agent.published.hardware", DELETE),
        "agent.published.hardware",
        "name of the GPU",
    ),
    Case(
        "rescored_verdict_as_list",
        _rescored("agent.published.annotation_verdict", ["clean"]),
        "agent.published.annotation_verdict",
        "expected null or a string",
    ),
    Case("rescored_published_missing", _rescored("agent.published", DELETE), "agent.published", "expected an object"),
    Case("rescored_from_not_a_string", _rescored("agent.rescored_from", 1), "agent.rescored_from", "non-empty string"),
    Case(
        "rescored_marker_missing", _rescored("agent.rescored_from", DELETE), "agent.rescored_from", "non-empty string"
    ),
    # A system's failure class, shown on the board and the run page.
    Case("failure_unknown_class", _failure(**{"class": "slow"}), "systems[0].failure.class", "is not one of"),
    Case("failure_label_not_text", _failure(label=7), "systems[0].failure.label", "expected str"),
    Case("failure_unseen_only_string", _failure(unseen_only="yes"), "systems[0].failure.unseen_only", "expected bool"),
    Case("failure_detail_as_object", _failure(detail={"x": 1}), "systems[0].failure.detail", "expected str"),
    Case("failure_shape_name_number", _failure(shapes=[3]), "systems[0].failure.shapes[0]", "shape name"),
    # The run page shows a timed shape's SM clock and its reasons (scoring/gpu_state.py).
    Case(
        "gpu_state_clock_as_text",
        _set(
            "systems[0].shapes[0].gpu_state",
            {"samples": 3, "sm_clock_mhz": {"min": "fast", "median": 1980, "max": 1980}},
        ),
        "systems[0].shapes[0].gpu_state.sm_clock_mhz.min",
        "expected number",
    ),
    Case(
        "gpu_state_reason_not_text",
        _set("systems[0].shapes[1].gpu_state", {"clock_event_reasons": [4]}),
        "systems[0].shapes[1].gpu_state.clock_event_reasons[0]",
        "reason's name",
    ),
    Case(
        "gpu_state_as_list",
        _set("systems[0].shapes[0].gpu_state", [1980]),
        "systems[0].shapes[0].gpu_state",
        "expected dict",
    ),
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
