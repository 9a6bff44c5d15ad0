"""The key=value command line: parsing, suggestions, help, and the CLI's exit codes."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.config import ConfigError, RunConfig, help_text, parse_args

REPO = Path(__file__).resolve().parents[2]


def test_values_are_converted_to_the_field_types():
    config = parse_args(["problem=fp8_gemm", "audits=off", "min_calls=7", "target_rse=0.01", "peak_tflops=1000"])
    assert (config.problem, config.audits, config.min_calls, config.target_rse, config.peak_tflops) == (
        "fp8_gemm",
        False,
        7,
        0.01,
        1000.0,
    )


def test_bare_problem_name_is_accepted_first():
    assert parse_args(["fp8_gemm", "shapes=visible"]).shapes == "visible"


@pytest.mark.parametrize(
    "argv,words",
    [
        (["problem=fp8_gemm", "shape=visible"], "did you mean 'shapes'"),
        (["problem=fp8_gemm", "shapes=visibel"], "did you mean 'visible'"),
        (["problem=fp8_gemm", "min_calls=many"], "expected int"),
        (["problem=fp8_gemm", "audits=maybe"], "expected bool"),
        (["problem=fp8_gemm", "lines=eager,cublas"], "unknown line 'cublas'"),
        (["problem=fp8_gemm", "stray"], "not key=value"),
    ],
)
def test_bad_arguments_explain_themselves(argv, words):
    with pytest.raises(ConfigError, match=words):
        parse_args(argv)


def test_help_lists_every_key_with_its_default():
    text = help_text()
    for field in dataclasses.fields(RunConfig):
        assert f"  {field.name} " in text
    assert "[all]" in text and "[0.005]" in text


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "scoring.run", *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def test_cli_help_and_list_exit_zero():
    assert run_cli("help").returncode == 0
    listed = run_cli("list")
    assert listed.returncode == 0 and "fp8_gemm" in listed.stdout


def test_cli_usage_errors_exit_two_with_a_suggestion():
    misspelled = run_cli("problem=fp8_gem")
    assert misspelled.returncode == 2 and "did you mean 'fp8_gemm'" in misspelled.stderr
    missing = run_cli("problem=fp8_gemm", "solution=/nonexistent/solution.py", "device=cpu")
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_cli_refuses_an_unreadable_agent_file(tmp_path):
    bad = tmp_path / "agent.json"
    bad.write_text("{not json")
    result = run_cli("problem=fp8_gemm", f"agent={bad}", "device=cpu")
    assert result.returncode == 2 and "cannot be read as JSON" in result.stderr
