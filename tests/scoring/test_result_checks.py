"""The result checks (scoring/result_checks.py) and `python -m scoring.verify`, on real and corrupted results."""

import copy
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.result import geomean_score
from scoring.result_checks import check_file, check_result
from scoring.verify import main as verify
from tests.scoring.corrupted_results import CASES, REPO, TEMPLATE, template, write_case

CORPUS = REPO / "results" / "corpus" / "h100_sxm"
# An adversary whose shape ran "faster than the roofline": the scorer recorded fraction 16.1 and rejected it.
REJECTED = CORPUS / "20261122T090658Z-fp8_gemm-X10_side_stream-b1d712.json"


def test_every_committed_result_is_valid(capsys):
    assert verify([str(REPO / "results")]) == 0
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert summary.startswith("checked ") and " 0 invalid" in summary and "other JSON file(s) left out" in summary


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_verify_names_the_field_and_fix_of_each_corruption(case, tmp_path, capsys):
    path = write_case(case, tmp_path)
    assert verify([str(path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    named = [line for line in lines if line.startswith(f"{path}: field '{case.field}': ")]
    assert named, lines
    assert any(case.says in line for line in named), named
    assert all(". Fix: " in line for line in lines[:-1])
    assert lines[-1].startswith("checked 1 result file(s): 0 valid, 1 invalid")


def test_a_rejected_shape_may_record_its_impossible_fraction():
    data = json.loads(REJECTED.read_text())
    (index,) = [j for j, s in enumerate(data["systems"][0]["shapes"]) if s["status"] == "rejected"]
    shape = data["systems"][0]["shapes"][index]
    assert shape["fraction"] > 1 and check_result(data, "x.json") == []
    shape["status"] = "passed"  # the same fraction on a shape that claims to have passed
    issues = {i.field: i for i in check_result(data, "x.json")}
    assert "physically impossible" in issues[f"systems[0].shapes[{index}].fraction"].fix


def test_a_line_whose_file_was_absent_has_no_shapes_and_is_not_available():
    data = template()
    data["systems"][3].update(status="not_available", shapes=[], score=geomean_score([], "not_available"))
    assert check_result(data, "x.json") == []
    data["systems"][3]["status"] = "passed"
    assert [i.field for i in check_result(data, "x.json")] == ["systems[3].status"]


def test_a_held_out_fraction_is_nan_only_without_held_out_shapes():
    data = template()
    for system in data["systems"]:
        system["shapes"] = [s for s in system["shapes"] if s["shape_set"] != "held_out"]
        system["score"] = geomean_score(system["shapes"], system["status"])
    data["score"] = data["systems"][0]["score"]
    assert math.isnan(data["score"]["held_out_fraction"]) and check_result(data, "x.json") == []
    broken = copy.deepcopy(data)
    broken["systems"][0]["score"]["held_out_fraction"] = 0.5
    assert "expected NaN" in str(check_result(broken, "x.json")[0])


def test_a_folder_is_searched_recursively_and_other_json_files_are_left_out(tmp_path, capsys):
    shutil.copy(TEMPLATE, tmp_path / "good.json")
    write_case(CASES[0], tmp_path / "deeper" / "still")
    (tmp_path / "summary.json").write_text(json.dumps({"schema": "ceiling.corpus/1", "cases": []}))
    (tmp_path / "rows.json").write_text("[1, 2]")
    (tmp_path / ".tmp-half-written.json").write_text("{")
    assert verify([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "corrupt-score_1_7.json: field 'systems[0].score.fraction'" in out
    assert out.strip().splitlines()[-1] == (
        "checked 2 result file(s): 1 valid, 1 invalid (1 problem(s)); 2 other JSON file(s) left out"
    )


def test_a_file_named_on_the_command_line_is_always_checked(tmp_path, capsys):
    (tmp_path / "summary.json").write_text(json.dumps({"schema": "ceiling.corpus/1"}))
    assert verify([str(tmp_path / "summary.json")]) == 1
    assert "field 'schema'" in capsys.readouterr().out


def test_usage_errors_exit_2_with_one_line(tmp_path, capsys):
    assert verify([]) == 2
    assert verify([str(tmp_path / "missing.json")]) == 2
    assert verify([str(tmp_path)]) == 2  # an empty folder: no result file to vouch for
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)
    assert "does not exist" in err[1] and "no result files" in err[2]


def test_the_command_runs_without_torch_or_site_libraries(tmp_path):
    path = write_case(CASES[1], tmp_path)
    code = (
        "import sys; from scoring.verify import main; rc = main(sys.argv[1:]); "
        "loaded = [m for m in ('torch', 'jinja2', 'pandas', 'plotly') if m in sys.modules]; "
        "assert not loaded, loaded; sys.exit(rc)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "scoring.verify", "help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert helped.returncode == 0 and "python -m scoring.verify PATH" in helped.stdout


def test_check_file_reports_an_unreadable_file(tmp_path):
    path = tmp_path / "r.json"
    path.write_bytes(b"\xff\xfe{")
    (issue,) = check_file(path)
    assert issue.field == "(file)" and "not readable JSON" in issue.problem and issue.fix
    assert check_file(Path(TEMPLATE)) == []


def test_a_rescored_runs_provenance_and_published_verdict_pass_when_well_formed():
    from tests.scoring.corrupted_results import RESCORED_AGENT

    data = template()
    data["agent"] = copy.deepcopy(RESCORED_AGENT)
    assert check_result(data, "x.json") == []
    data["agent"]["published"].update(
        correct=False, peak_fraction=None, annotation_verdict=None, failure_reason="wrong output on shape 3"
    )
    del data["agent"]["source"]["sha256"]
    assert check_result(data, "x.json") == []
    data["agent"]["source"]["path"] = "a/./b.py"  # a '.' part: not a plain path to link to
    assert [i.field for i in check_result(data, "x.json")] == ["agent.source.path"]
