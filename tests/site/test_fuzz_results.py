"""Fuzz: mutate real committed result files (types, values, deletions) and build the site from them.

Seeded, so a failure replays. The site's loader must never raise, and must never accept a file that
would show an invalid value: every accepted run's shown fractions are finite and in 0..1 (NaN only for
a score over a set with no shapes), its statuses are known, and its scores are the geomeans of its shapes.
Then one build over every mutant must finish, and its downloads (every value the pages show) must hold
the same properties.
"""

import copy
import json
import math
import random
import re
from pathlib import Path

from scoring.result import STATUS_SEVERITY, geomean_score, system_status
from tests.site.fixtures import REPO

SEED = 20
MUTANTS = 300
SOURCES = sorted((REPO / "results" / "h100_sxm").glob("*.json")) + \
    sorted((REPO / "results" / "h100_sxm" / "runs").glob("*/result.json"))
# The fields the site reads; most mutations land on one of these (the rest anywhere in the file).
HOT = re.compile(
    r"(schema|run_id|created_utc|status|agent(\.\w+)?|problem\.\w+|hardware\.(profile|name|peak(\.\w+)*)|geomean_score(\.\w+)?"
    r"|systems(\[\d+\](\.(role|name|label|path|sha256|status|wall_s|geomean_score(\.\w+)?|audits(\[\d+\](\.outcome)?)?"
    r"|shapes(\[\d+\](\.(name|status|shape_set|params|flops|bytes_moved|fraction|achieved_tflops|achieved_gbps"
    r"|roofline_ms|bound|check|timing(\.\w+)?))?)?))?)?)")
ODD_VALUES = ["high", "", None, True, False, [], {}, [0.5], {"fraction": 0.5}, 0, -1, 7, 1.7, -0.2, 1.0000001,
              math.nan, math.inf, -math.inf, 10 ** 30, 1e-320, "passed", "rejected", "not_available", "integrity"]


def _paths(node, prefix=()):
    """Every (path, dotted name) in a JSON tree, containers included."""
    found = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        path = prefix + (key,)
        found.append(path)
        found += _paths(child, path)
    return found


def _dotted(path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def _mutate(data: dict, rng: random.Random) -> None:
    paths = _paths(data)
    hot = [p for p in paths if HOT.fullmatch(_dotted(p))]
    path = rng.choice(hot if hot and rng.random() < 0.75 else paths)
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    key, value = path[-1], parent[path[-1]]
    kind = rng.random()
    if kind < 0.2:
        del parent[key]
    elif kind < 0.55 or not isinstance(value, (int, float)) or isinstance(value, bool):
        parent[key] = copy.deepcopy(rng.choice(ODD_VALUES))
    else:  # a plausible-looking number: scaled, negated, nudged, or the other side of 1
        parent[key] = rng.choice([value * 1.7, -value, value * (1 + 1e-3), 1 - value, value + 1, value / 3])


def _mutants(folder: Path) -> list[Path]:
    rng = random.Random(SEED)
    originals = [json.loads(p.read_text()) for p in SOURCES]
    written = []
    for i in range(MUTANTS):
        data = copy.deepcopy(rng.choice(originals))
        data["run_id"] = f"fuzz-{i:03d}"
        for _ in range(rng.choice([1, 1, 2, 3])):
            if isinstance(data, dict) and data:
                _mutate(data, rng)
        path = folder / f"fuzz-{i:03d}.json"
        path.write_text(json.dumps(data))
        written.append(path)
    return written


def _in_unit_range(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and 0.0 <= value <= 1.0


def _no_score(value) -> bool:
    """A set with no shapes: null in result files, NaN in files written before 2026-11-27."""
    return value is None or math.isnan(value)


def assert_shown_values_sound(data: dict) -> None:
    """What the site shows of an accepted run, checked from the definitions (scoring.result), not the checker."""
    assert data["status"] in STATUS_SEVERITY and data["status"] == data["systems"][0]["status"]
    for system in data["systems"]:
        shapes, recorded = system["shapes"], system["score"]
        assert system["status"] in STATUS_SEVERITY
        assert system["status"] == (system_status(shapes, system.get("audits") or []) if shapes else "not_available")
        for shape in shapes:
            assert shape["status"] in STATUS_SEVERITY and shape["shape_set"] in ("visible", "held_out", "property")
            if "fraction" in shape and shape["status"] != "rejected":  # a rejected one is never shown
                assert _in_unit_range(shape["fraction"]), shape["fraction"]
        derived = geomean_score(shapes, system["status"])
        for key in ("fraction", "visible_fraction", "held_out_fraction"):
            if math.isnan(derived[key]):
                assert _no_score(recorded[key])
            else:
                assert _in_unit_range(recorded[key]) and math.isclose(recorded[key], derived[key], rel_tol=1e-6)
        if system["status"] != "passed":
            assert recorded["fraction"] == 0.0
    for key in ("fraction", "visible_fraction", "held_out_fraction"):
        top, solution = data["score"][key], data["systems"][0]["score"][key]
        assert (_no_score(top) and _no_score(solution)) or math.isclose(top, solution, rel_tol=1e-6)


def test_mutated_results_never_crash_the_loader_or_show_an_invalid_value(tmp_path):
    from board import BuildConfig, build
    from board.load import read_result

    results = tmp_path / "results"
    folder = results / "h100_sxm"
    folder.mkdir(parents=True)
    known = {p.name for p in (REPO / "problems").iterdir() if (p / "problem.toml").is_file()}
    accepted, invalid, cpu = set(), 0, 0
    for path in _mutants(folder):
        run, issues, is_cpu = read_result(path, results, known, {}, include_cpu=False)
        assert all(i.field and i.fix for i in issues)
        if run is not None:
            assert_shown_values_sound(run.data)
            accepted.add(run.run_id)
        invalid += bool(issues)
        cpu += is_cpu
    assert 0 < len(accepted) < MUTANTS and invalid > MUTANTS // 3  # the mutations bite, and some are harmless
    report = build(BuildConfig(results=str(results), out=str(tmp_path / "site"), transcripts=False),
                   log=lambda line: None)
    assert report.runs == len(accepted) and report.invalid_results == invalid and report.cpu_skipped == cpu
    shown = json.loads((tmp_path / "site" / "downloads" / "results.json").read_text())
    assert {r["run_id"] for r in shown["runs"]} == accepted
    for run in shown["runs"]:  # NaN is written as null there
        for system in run["systems"]:
            for value in [system["score"][k] for k in ("fraction", "visible_fraction", "held_out_fraction")] + \
                    [s["fraction"] for s in system["shapes"]]:
                assert value is None or _in_unit_range(value), (run["run_id"], value)
