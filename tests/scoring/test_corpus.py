"""The corpus runner (`python -m scoring.corpus`) on the CPU: its cases, its checks of EXPECTED, its
summary and its exit status. The adversaries' own classifications are tests/scoring/test_isolation.py."""

import ast
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.corpus import runner
from scoring.corpus.cases import (
    CORPUS_ROOT,
    CaseError,
    Expectation,
    adversary_case,
    all_cases,
)
from scoring.result import SCHEMA as RESULT_SCHEMA

NO_RUN = CORPUS_ROOT / "fp8_gemm" / "robustness_no_run_function.py"
SCORING_DIR = Path(runner.__file__).resolve().parents[1]


def test_the_engine_does_not_depend_on_the_corpus():
    """The corpus runner uses the engine; no engine module imports the corpus (scoring/corpus/ excepted)."""
    importers = []
    for path in sorted(SCORING_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if any(n == "scoring.corpus" or n.startswith("scoring.corpus.") for n in names):
                importers.append(path.name)
    assert not importers, f"engine modules import the corpus runner: {importers}"


def test_python_m_scoring_corpus_is_the_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "scoring.corpus", "help"],
        cwd=SCORING_DIR.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("python -m scoring.corpus [key=value ...]"), proc.stderr


def test_every_case_declares_both_profiles_and_every_problem_has_a_house_case():
    cases = all_cases()
    assert {c.kind for c in cases} == {"adversary", "known_wrong", "house"}
    assert len({c.case_id for c in cases}) == len(cases)
    for case in cases:
        for profile in ("cpu", "gpu"):
            expected = case.expected[profile]
            assert expected.status or expected.not_exercised, (case.case_id, profile)
    houses = {c.problem for c in cases if c.kind == "house"}
    assert houses == {c.problem for c in cases}


@pytest.mark.parametrize(
    "literal,words",
    [
        ('{"class": "X04", "cpu": {"status": "incorrect"}}', "missing ['gpu']"),
        ('{"class": "X4", "cpu": {"status": "passed"}, "gpu": {"status": "passed"}}', "EXPECTED['class'] is 'X4'"),
        ('{"class": None, "cpu": {"status": "wrong"}, "gpu": {"status": "passed"}}', "EXPECTED['cpu']['status']"),
        ('{"class": None, "cpu": {"status": "passed", "detial": "x"}, "gpu": {"status": "passed"}}', "unknown keys"),
        ('{"class": None, "cpu": {"not_exercised": ""}, "gpu": {"status": "passed"}}', "non-empty reason"),
        ('{"class": None, "cpu": {"status": "passed"}, "gpu": None}', "EXPECTED['gpu'] must be a dict"),
        ('{"class": None, "cpu": {"status": ["passed"]}, "gpu": {"status": "passed"}}', "a list of two or more"),
        ('{"class": None, "cpu": {"status": ["passed", "fine"]}, "gpu": {"status": "passed"}}', "is 'fine'"),
        ('{"class": None, "shape_set": "seen", "cpu": {"status": "passed"}, "gpu": {"status": "passed"}}', "shape_set"),
        ("make_expected()", "must be a literal"),
        (
            '{"class": None, "cpu": {"status": "passed", "seed_secret": "../x"}, "gpu": {"status": "passed"}}',
            "EXPECTED['cpu']['seed_secret'] must be lowercase hex",
        ),
    ],
)
def test_a_bad_expected_names_the_file_and_the_field(tmp_path, literal, words):
    path = tmp_path / "bad_case.py"
    path.write_text(f"EXPECTED = {literal}\n")
    with pytest.raises(CaseError) as error:
        adversary_case(path, "fp8_gemm")
    assert str(path) in str(error.value) and words in str(error.value)


def test_expected_is_read_above_a_parse_error(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(
        'EXPECTED = {"class": None, "cpu": {"status": "import_error"}, "gpu": {"status": "import_error"}}\n'
        "def run(state) return\n"
    )
    assert adversary_case(path, "fp8_gemm").expected["cpu"].status == "import_error"


def test_the_runner_scores_a_subset_writes_its_summary_and_exits_zero(tmp_path, capsys):
    argv = ["device=cpu", f"out={tmp_path}", "only=X04_,X12_,robustness_no_run"]
    assert runner.main(argv) == 0
    printed = capsys.readouterr().out
    summary_path = Path(printed.strip().splitlines()[-1].removeprefix("summary: "))
    summary = json.loads(summary_path.read_text())
    assert summary["schema"] == runner.SCHEMA and summary["command"] == "python -m scoring.corpus " + " ".join(argv)
    assert summary["hardware"]["profile"] == "cpu" and summary["versions"]["torch"]
    assert summary["totals"] == {"as_expected": 2, "mismatch": 0, "could_not_run": 0, "not_exercised": 1}
    by_id = {c["id"]: c for c in summary["cases"]}
    mutation = by_id["fp8_gemm/X04_mutates_its_input"]
    assert mutation["observed"]["status"] == "incorrect" and mutation["class_named"] is True
    assert json.loads((summary_path.parent / mutation["result_file"]).read_text())["schema"] == RESULT_SCHEMA
    assert by_id["fp8_gemm/X12_persisting_l2_window"]["reason"].startswith("the CPU profile has no L2")
    assert "X04_mutates_its_input" in printed and "not_exercised" in printed


def test_a_mismatch_or_a_case_that_could_not_run_fails_the_run(tmp_path, monkeypatch, capsys):
    case = adversary_case(NO_RUN, "fp8_gemm")
    wrong = dataclasses.replace(case, expected={"cpu": Expectation("passed"), "gpu": Expectation("passed")})
    monkeypatch.setattr(runner, "all_cases", lambda: [wrong])
    assert runner.main(["device=cpu", f"out={tmp_path}"]) == 1
    assert "status 'import_error', expected 'passed'" in capsys.readouterr().out

    def broken_scorer(config, argv):
        raise RuntimeError("scorer broke")

    monkeypatch.setattr(runner, "run", broken_scorer)
    assert runner.main(["device=cpu", f"out={tmp_path}"]) == 1
    assert "could_not_run" in capsys.readouterr().out


def test_usage_errors_exit_two(capsys):
    assert runner.main(["kinds=adversary,housekeeping"]) == 2
    assert runner.main(["only=no-such-case-anywhere", "device=cpu"]) == 2
    assert runner.main(["colour=blue"]) == 2
    assert runner.main(["help"]) == 0 and "only" in capsys.readouterr().out


def test_only_a_cuda_out_of_memory_failure_is_retried_alone(tmp_path):
    """Cases sharing one GPU can exhaust its memory; such a failure is judged again alone, no other."""
    from scoring.corpus.runner import ran_out_of_device_memory

    def record_with(detail):
        path = tmp_path / f"{len(detail)}.json"
        path.write_text(json.dumps({"systems": [{"shapes": [{"status": "runtime_error", "detail": detail}]}]}))
        return {"result_path": str(path)}

    assert ran_out_of_device_memory(record_with("OutOfMemoryError: CUDA out of memory. Tried to allocate 1016.00 MiB"))
    assert not ran_out_of_device_memory(record_with("RuntimeError: boom on decode"))
    assert not ran_out_of_device_memory({"verdict": "could_not_run"})


def test_a_class_named_only_by_a_failed_audit_counts_as_named():
    from scoring.corpus.judge import class_named

    bf16_cast = next(c for c in all_cases() if c.case_id == "fp8_gemm/wrong/bf16_cast")
    result = {
        "systems": [
            {
                "status": "integrity",
                "shapes": [{"name": "square_64", "status": "passed"}],
                "audits": [
                    {"id": "tensor_precision", "outcome": "failed (X20: tensor work on the bf16 path, expected fp8)"}
                ],
            }
        ]
    }
    assert bf16_cast.class_id == "X20" and class_named(bf16_cast, result) is True
    result["systems"][0]["audits"][0]["outcome"] = "not verified (ncu not found)"
    assert class_named(bf16_cast, result) is False


def test_an_outcome_that_turns_on_noise_may_list_the_statuses_it_can_get(tmp_path):
    from scoring.corpus.judge import mismatches

    path = tmp_path / "either.py"
    path.write_text(
        'EXPECTED = {"class": "X10", "cpu": {"status": ["passed", "integrity"], '
        '"shapes": {"square_64": ["passed", "integrity"]}}, "gpu": {"not_exercised": "no"}}\n'
    )
    case = adversary_case(path, "fp8_gemm")
    expected = case.expected["cpu"]
    assert expected.as_dict()["status"] == ["passed", "integrity"]

    def result(status):
        return {
            "systems": [
                {"status": status, "shapes": [{"name": "square_64", "status": status, "detail": ""}], "audits": []}
            ]
        }

    assert mismatches(case, expected, result("passed")) == []
    assert mismatches(case, expected, result("integrity")) == []
    assert mismatches(case, expected, result("incorrect")) == [
        "status 'incorrect', expected 'passed' or 'integrity'",
        "shape 'square_64' is 'incorrect', expected 'passed' or 'integrity'",
    ]
    assert runner.runs_alone(case, "cpu")


def test_a_drawn_defence_is_scored_with_its_recorded_secret_and_its_audit_detail_matched(tmp_path):
    """X20_bf16_past_the_first_timed_calls.py fails the audit on the draws its recorded secret makes: the run
    replays that secret, and the detail it expects is found in the failed audit's outcome."""
    from scoring.corpus.judge import mismatches

    case = next(c for c in all_cases() if c.case_id == "fp8_gemm/X20_bf16_past_the_first_timed_calls")
    expected = case.expected["gpu"]
    replayed = runner.run_config(case, runner.CorpusConfig(), "gpu").seed_secret
    assert replayed == expected.seed_secret == "0000000000000018"
    assert runner.run_config(case, runner.CorpusConfig(), "cpu").seed_secret == ""

    def result(outcome):
        return {
            "systems": [
                {
                    "status": "integrity",
                    "shapes": [{"name": "square_8192", "status": "passed"}],
                    "audits": [{"id": "tensor_precision", "outcome": outcome}],
                }
            ]
        }

    assert mismatches(case, expected, result("failed (X20: tensor work on the bf16 path, expected fp8)")) == []
    assert mismatches(case, expected, result("failed (X22: a third of the formula's work)")) == [
        "no detail contains 'tensor_precision: failed (X20'"
    ]


def test_a_time_forger_that_passes_must_not_have_gained(tmp_path):
    """A forger the judge charges instead of failing (every gate timed out, a report under the X30 limit) passes
    by design; its expectation bounds its score, so a charge that stopped working fails the corpus."""
    from scoring.corpus.judge import mismatches

    case = next(c for c in all_cases() if c.case_id == "fp8_gemm/X30_times_out_every_gate_on_purpose")
    expected = case.expected["gpu"]
    assert expected.fraction_at_most is not None and expected.as_dict()["fraction_at_most"] == expected.fraction_at_most

    def result(fraction):
        shapes = [{"name": name, "status": "passed", "detail": ""} for name in expected.shapes]
        return {"systems": [{"status": "passed", "shapes": shapes, "audits": [], "score": {"fraction": fraction}}]}

    assert mismatches(case, expected, result(0.113)) == []  # as measured on an H100 (house 0.55)
    (found,) = mismatches(case, expected, result(0.9))  # what a 0.6x report would score unchecked
    assert found.startswith("score 0.9, expected at most")
    bad = tmp_path / "bad.py"
    bad.write_text(
        'EXPECTED = {"class": "X30", "cpu": {"status": "passed", "fraction_at_most": "high"}, "gpu": {"not_exercised": "no"}}\n'
    )
    with pytest.raises(CaseError, match="fraction_at_most"):
        adversary_case(bad, "fp8_gemm")


def test_on_a_gpu_only_cases_that_end_at_their_import_share_the_device():
    """The judge's clock counts another process's work inside a call's span as the worker's (an honest shape
    failed X30 beside two neighbours on an H100, jobs=3): a case whose shapes may be timed runs alone there."""
    cases = {c.case_id: c for c in all_cases()}
    hangs = cases["fp8_gemm/robustness_hangs_on_unaligned_k"]
    syntax = cases["fp8_gemm/robustness_syntax_error"]
    assert hangs.expected["gpu"].status == "timeout"
    assert runner.runs_alone(hangs, "gpu") and not runner.runs_alone(hangs, "cpu")
    assert syntax.expected["gpu"].status == "import_error"
    assert not runner.runs_alone(syntax, "gpu")


def test_the_residual_adversaries_still_find_the_audited_call():
    """X20_residual_same_kernel_name_when_audited and X13_other_kernels_on_the_audited_call stand for a residual
    (no arrangement of the grader's Python state hides the audited call from code in the same interpreter) only
    while their helper finds the worker's frame: it lost it once, silently (H100 corpus, 2026-11-27 17:00)."""
    import importlib.util
    import inspect

    from scoring.corpus.cases import CORPUS_ROOT
    from scoring.worker.server import CallServer

    assert list(inspect.signature(CallServer.call).parameters) == ["self", "message"]
    assert 'message.get("audited")' in inspect.getsource(CallServer.call)
    spec = importlib.util.spec_from_file_location("corpus_watch", CORPUS_ROOT / "fp8_gemm" / "_watch.py")
    watch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(watch)

    def call(message):  # the worker's frame, as the solution's run sees it below
        return (lambda: watch.audited_call_on_the_stack())()

    assert call({"audited": True}) and not call({"audited": False})
