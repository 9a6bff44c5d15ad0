"""Strict result files: no NaN/Infinity token, the published schema of ceiling.result/1, and the migration script."""

import copy
import json
import math
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from scoring.failure_class import LABELS as FAILURE_CLASSES
from scoring.kernel_name_table import expanded
from scoring.result import STATUS_SEVERITY, finite_or_null, geomean_score, result_text, write_result
from scoring.result_checks import check_result
from scoring.result_schema import SCHEMA_PATH, schema_issues
from scoring.verify import main as verify
from tests.scoring.corrupted_results import CASES, REPO, template, write_case

MIGRATE = REPO / "scripts" / "migrate_results_to_strict_json.py"
# Corruptions that only a comparison of values finds (a score against its shapes, a copy against its original,
# a status against its shapes and audits): a schema cannot say them; scoring.verify's value checks do
# (tests/scoring/test_result_checks.py).
RELATIONAL = {
    "top_level_score_only",
    "geomean_mismatch",
    "reference_line_geomean_mismatch",
    "visible_fraction_mismatch",
    "shape_fraction_not_from_its_timing",
    "shape_tflops_not_from_its_timing",
    "shape_edited_but_score_not",
    "failed_shape_but_passed_status",
    "failed_audit_but_passed_status",
}


def _refuse(name):
    raise ValueError(f"{name} is not JSON")


def loads_strict(text: str):
    """What JavaScript's JSON.parse accepts: Python's json with NaN, Infinity and -Infinity refused."""
    return json.loads(text, parse_constant=_refuse)


def committed_json_files() -> list:
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "results"], capture_output=True, check=True)
    return [REPO / name for name in listed.stdout.decode().split("\0") if name.endswith(".json")]


def committed_results() -> list:
    results = []
    for path in committed_json_files():
        data = json.loads(path.read_text())
        if isinstance(data, dict) and data.get("schema") == "ceiling.result/1":
            results.append((path, data))
    return results


def test_no_committed_json_file_under_results_holds_a_nan_or_infinity_token():
    files = committed_json_files()
    assert len(files) > 800
    unreadable = []
    for path in files:
        try:
            loads_strict(path.read_text())
        except ValueError as error:
            unreadable.append(f"{path.relative_to(REPO)}: {error}")
    assert not unreadable, unreadable[:5]


def test_the_schema_is_draft_2020_12_and_names_the_scorers_statuses_and_classes():
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$defs"]["status"]["enum"] == list(STATUS_SEVERITY)
    assert schema["$defs"]["failure"]["properties"]["class"]["enum"] == list(FAILURE_CLASSES)
    assert schema["properties"]["schema"]["const"] == "ceiling.result/1"


def test_every_committed_result_follows_the_schema():
    results = committed_results()
    assert len(results) > 800  # results/ with judge/, corpus/, kernelbench re-scores, h200_sxm/
    broken = [str(issue) for path, data in results for issue in schema_issues(data, str(path.relative_to(REPO)))]
    assert not broken, broken[:5]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_schema_rejects_each_corruption_a_schema_can_see(case, tmp_path):
    text = write_case(case, tmp_path).read_text()
    try:
        data = loads_strict(text)
    except ValueError:  # NaN, Infinity or a truncated file: no strict reader gets as far as the schema
        assert case.name not in RELATIONAL
        return
    fields = [issue.field for issue in schema_issues(data, "x.json")]
    if case.name in RELATIONAL:
        assert fields == []  # well formed; scoring.verify's value checks reject it
    else:
        assert case.field in fields, fields


def test_the_writer_writes_nan_and_infinity_as_null(tmp_path):
    shapes = [
        {"name": "a", "shape_set": "visible", "params": {}, "status": "passed", "fraction": 0.5},
        {"name": "p", "shape_set": "property", "params": {}, "status": "passed"},
    ]
    result_score = geomean_score(shapes, "passed")
    assert math.isnan(result_score["held_out_fraction"])  # no held-out shapes: no geomean
    check = {"passed": False, "max_abs_err": math.inf, "normwise_err": -math.inf, "nonfinite_elements": 3}
    path = write_result({"run_id": "r1", "score": result_score, "check": check, "times": (1.0, math.nan)}, tmp_path)
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    written = loads_strict(text)
    assert written["score"]["held_out_fraction"] is None and written["score"]["generalisation_gap"] is None
    assert written["score"]["visible_fraction"] == 0.5
    assert written["check"] == {"passed": False, "max_abs_err": None, "normwise_err": None, "nonfinite_elements": 3}
    assert written["times"] == [1.0, None]
    assert text.startswith('{\n "run_id": "r1",\n')  # one key per line above a shape's fields (result_text)


def test_finite_or_null_leaves_everything_else_alone():
    value = {"a": [1, 2.5, True, None, "NaN", {"b": -0.0}], "c": 10**30}
    assert finite_or_null(value) == value


def _without_held_out(data: dict) -> dict:
    """A real result as a `shapes=visible,property` run writes it: no held-out shapes, so those scores are null."""
    for system in data["systems"]:
        system["shapes"] = [s for s in system["shapes"] if s["shape_set"] != "held_out"]
        system["score"] = geomean_score(system["shapes"], system["status"])
    data["score"] = data["systems"][0]["score"]
    return data


def test_a_result_written_today_and_one_written_with_nan_both_pass_verify(tmp_path, capsys):
    data = _without_held_out(template())
    data["run_id"] = "strict"
    strict = write_result(data, tmp_path)  # the scorer's writer: null
    old = tmp_path / "old.json"
    old.write_text(json.dumps(dict(data, run_id="old"), indent=1, allow_nan=True))  # before 2026-11-27: NaN
    assert "NaN" in old.read_text() and loads_strict(strict.read_text())["score"]["held_out_fraction"] is None
    assert verify([str(strict), str(old)]) == 0
    assert capsys.readouterr().out.strip().endswith("checked 2 result file(s): 2 valid, 0 invalid (0 problem(s))")


def test_a_null_score_where_the_set_has_shapes_is_an_error():
    data = template()
    data["systems"][0]["score"]["held_out_fraction"] = data["score"]["held_out_fraction"] = None
    issues = check_result(data, "x.json")
    assert [i.field for i in issues] == ["systems[0].score.held_out_fraction"]
    assert "is null, but the system has held-out shapes" in issues[0].problem


def test_verify_reports_a_schema_violation_with_the_field_path_and_the_fix(tmp_path, capsys):
    data = template()
    data["systems"][2]["shapes"][1]["check"]["max_abs_err"] = "large"  # no value check reads it; the schema does
    del data["seeds"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data, indent=1))
    assert verify([str(path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == (
        f"{path}: field 'seeds': is missing. Fix: the field must follow "
        "scoring/schema/ceiling.result-1.schema.json (rule required; docs/results.md documents it): "
        "regenerate the file with `python -m scoring.run` (results are written by the scorer, never "
        "by hand)"
    )
    assert lines[1].startswith(
        f"{path}: field 'systems[2].shapes[1].check.max_abs_err': is 'large': not of type "
        "'number', 'null'. Fix: the field must follow scoring/schema/"
    )
    assert lines[-1] == "checked 1 result file(s): 0 valid, 1 invalid (2 problem(s))"


# The migration script (scripts/migrate_results_to_strict_json.py).


def _migrate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(MIGRATE), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_migration_rewrites_only_the_tokens_and_keeps_the_layout(tmp_path):
    old = {
        "schema": "ceiling.result/1",
        "detail": "3 NaN/Inf elements; Infinity is a word here, \"NaN\" too",
        "score": {"held_out_fraction": math.nan, "visible_fraction": 0.25},
        "check": {"max_abs_err": math.inf, "normwise_err": -math.inf, "note": "-Infinity"},
        "values": [math.nan, 1e-300, -0.0, 12345678901234567890],
    }
    path = tmp_path / "deep" / "r.json"
    path.parent.mkdir()
    path.write_text(json.dumps(old, indent=1, allow_nan=True) + "\n")
    path.chmod(0o640)
    done = _migrate(str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert path.read_text() == json.dumps(finite_or_null(old), indent=1, allow_nan=False) + "\n"  # byte for byte
    assert path.stat().st_mode & 0o777 == 0o640
    assert f"{path}: 4 non-finite number(s) -> null: score.held_out_fraction, check.max_abs_err" in done.stdout
    assert "values[0]" in done.stdout
    assert done.stdout.strip().endswith("rewrote 1 of 1 JSON file(s) (4 token(s) -> null)")
    assert [p.name for p in path.parent.iterdir()] == ["r.json"]  # no temporary file left behind
    again = _migrate(str(path))
    assert again.returncode == 0 and again.stdout.strip() == "rewrote 0 of 1 JSON file(s) (0 token(s) -> null)"


def test_the_migration_dry_run_writes_nothing_and_an_unreadable_file_is_left_as_it_is(tmp_path):
    nan_file, broken = tmp_path / "a.json", tmp_path / "b.json"
    nan_file.write_text('{"x": NaN}')
    broken.write_text('{"x": NaN')
    done = _migrate("dry_run=true", str(tmp_path))
    assert done.returncode == 1
    assert nan_file.read_text() == '{"x": NaN}' and broken.read_text() == '{"x": NaN'
    assert f"{broken}: is not readable JSON" in done.stderr and "would rewrite 1 of 2" in done.stdout
    assert _migrate(str(tmp_path)).returncode == 1
    assert nan_file.read_text() == '{"x": null}' and broken.read_text() == '{"x": NaN'


def test_the_migration_usage_errors_exit_2(tmp_path):
    for args in ((), ("--check", str(tmp_path)), ("dry_run=maybe", str(tmp_path)), (str(tmp_path / "missing"),)):
        done = _migrate(*args)
        assert done.returncode == 2 and done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1, args
    helped = _migrate("help")
    assert helped.returncode == 0 and "dry_run=true" in helped.stdout


def test_a_migrated_committed_result_equals_its_old_form_with_null(tmp_path):
    """The committed results went through the script: one written back with NaN and migrated gives the same bytes."""
    path = next(p for p, data in committed_results() if data["score"]["held_out_fraction"] is None)
    data = json.loads(path.read_text())
    data_with_nan = copy.deepcopy(data)
    data_with_nan["score"]["held_out_fraction"] = data_with_nan["systems"][0]["score"]["held_out_fraction"] = math.nan
    old = tmp_path / path.name
    old.write_text(json.dumps(data_with_nan, indent=1, allow_nan=True) + "\n")
    assert _migrate(str(old)).returncode == 0
    assert old.read_text() == json.dumps(data, indent=1) + "\n"


def test_verify_without_jsonschema_says_what_to_install_and_judges_nothing():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['jsonschema'] = None; from scoring.verify import main; "
        "sys.exit(main(['results/h100_sxm']))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "pip install jsonschema" in done.stderr and "no file was judged" in done.stderr
    assert "valid" not in done.stdout


# The relayout script (scripts/relayout_results.py): the same JSON in the scorer's current layout.

RELAYOUT = REPO / "scripts" / "relayout_results.py"


def test_the_relayout_keeps_every_value_and_touches_only_results(tmp_path):
    shape = {"name": "s", "judge_clock": {"gpu_gaps_us": [1.5, 2.0, -0.0], "gate_timed_out": [False, True]}}
    result = {"schema": "ceiling.result/1", "run_id": "r", "systems": [{"role": "house", "shapes": [shape]}]}
    old_text = json.dumps(result, indent=1) + "\n"
    (tmp_path / "r.json").write_text(old_text)
    (tmp_path / "r.json").chmod(0o640)
    other = json.dumps({"schema": "ceiling.deck/1", "values": [1, 2]}, indent=1) + "\n"
    (tmp_path / "deck.json").write_text(other)
    done = subprocess.run([sys.executable, str(RELAYOUT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    new_text = (tmp_path / "r.json").read_text()
    assert new_text == result_text(result) + "\n" and len(new_text) < len(old_text)
    assert json.loads(new_text) == result and list(json.loads(new_text)) == list(result)
    assert ' "judge_clock": {"gpu_gaps_us":[1.5,2.0,-0.0],"gate_timed_out":[false,true]}' in new_text
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "deck.json").read_text() == other  # not a result: left alone
    assert "rewrote 1 of 2 file(s)" in done.stdout
    again = subprocess.run([sys.executable, str(RELAYOUT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert "rewrote 0 of 2 file(s)" in again.stdout  # already in the layout


def test_the_relayout_stores_each_systems_kernel_names_once_and_keeps_what_they_say(tmp_path):
    names = ["void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_nn_align8>(Params)"]
    shapes = [{"name": n, "kernel_record": {"kernel_names": names, "read_s": 0.1}} for n in ("a", "b", "c")]
    result = {"schema": "ceiling.result/1", "run_id": "r", "systems": [{"role": "library", "shapes": shapes}]}
    (tmp_path / "r.json").write_text(result_text(result) + "\n")
    done = subprocess.run([sys.executable, str(RELAYOUT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "rewrote 1 of 1 file(s)" in done.stdout, done.stderr
    new = json.loads((tmp_path / "r.json").read_text())
    assert new["systems"][0]["kernel_names"] == names
    assert [s["kernel_record"] for s in new["systems"][0]["shapes"]] == [{"kernel_name_ids": [0], "read_s": 0.1}] * 3
    assert expanded(new) == result


def test_the_relayout_leaves_a_file_with_nan_tokens_as_it_is(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"schema": "ceiling.result/1", "score": NaN}\n')
    done = subprocess.run([sys.executable, str(RELAYOUT), str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "is not strict JSON" in done.stderr
    assert path.read_text() == '{"schema": "ceiling.result/1", "score": NaN}\n'
