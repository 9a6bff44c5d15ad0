"""Bad input never reaches the board (issue 20): a solution the scorer cannot read is the solution's import
error (a result file, exit 1, no traceback), and an option outside its range is a usage error (exit 2, one
line naming the key, the value and the range)."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harnesses.config import HarnessConfig
from scoring.config import ConfigError, RunConfig, help_text, parse_args
from scoring.corpus.runner import parse_config as parse_corpus_config
from scoring.options import OptionError, parse
from scoring.run import main
from scoring.solution_file import MAX_SOURCE_BYTES, UnreadableSolution, read_solution

REPO = Path(__file__).resolve().parents[2]
QUICK = [
    "problem=fp8_gemm",
    "shapes=visible",
    "lines=none",
    "device=cpu",
    "check_seeds=1",
    "min_calls=2",
    "max_calls=2",
    "warmup_s=0",
    "budget_s=0.1",
]

# What each unreadable file holds, and the words its import detail must contain.
UNREADABLE = {
    "binary": (bytes(range(256)) * 4, "binary, not Python source (a NUL byte at byte 0)"),
    "not_utf8": ('LABEL = "café"\n'.encode("latin-1"), "not UTF-8 text at byte 12"),
    "oversize": (b"#" * (MAX_SOURCE_BYTES + 1) + b"\n", "of source, over the 1 MiB limit"),
    "syntax_error": (b"import torch\n\ndef run(state, a, b:\n    return a\n", "SyntaxError line 3: "),
}


def write(folder: Path, name: str, content: bytes) -> Path:
    path = folder / f"{name}.py"
    path.write_bytes(content)
    return path


# -- the solution file -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_an_unreadable_solution_is_refused_with_its_reason(case, tmp_path):
    content, words = UNREADABLE[case]
    path = write(tmp_path, case, content)
    with pytest.raises(UnreadableSolution) as refused:
        read_solution(path)
    assert str(refused.value).startswith(f"{path}: ") and words in str(refused.value)


@pytest.mark.parametrize(
    "content,words",
    [
        (b"# -*- coding: latin-1 -*-\nx = 1\n", "declares the source encoding 'iso-8859-1'"),  # audit and import differ
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "SyntaxError line 1: unknown encoding"),
        (
            b"def f():\n    pass\nreturn 1\n",
            "SyntaxError line 3: 'return' outside function",
        ),  # the compiler's, not the parser's
        (b"x = " + b"-" * 100_000 + b"1\n", "too deeply nested|SyntaxError"),  # which one depends on the Python
    ],
    ids=["declares_latin1", "unknown_codec", "return_outside_a_function", "deep_nesting"],
)
def test_source_python_would_not_compile_as_utf8_is_refused(content, words, tmp_path):
    with pytest.raises(UnreadableSolution, match=words):
        read_solution(write(tmp_path, "solution", content))


def test_a_missing_file_is_refused_without_a_traceback(tmp_path):
    with pytest.raises(UnreadableSolution, match="cannot be read"):
        read_solution(tmp_path / "gone.py")


def test_readable_source_at_the_limit_is_accepted_and_its_label_read(tmp_path):
    head = '\ufeffLABEL = "naïve kernel"\n'.encode()  # a BOM and non-ASCII text are UTF-8 too
    path = write(tmp_path, "solution", head + b"#" * (MAX_SOURCE_BYTES - len(head) - 1) + b"\n")
    assert path.stat().st_size == MAX_SOURCE_BYTES
    assert read_solution(path).string_constant("LABEL") == "naïve kernel"


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_the_run_records_an_unreadable_solution_as_its_import_error(case, tmp_path, capsys):
    content, words = UNREADABLE[case]
    path = write(tmp_path, case, content)
    assert main([*QUICK, f"solution={path}", f"out={tmp_path / 'results'}"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    [result_path] = (tmp_path / "results" / "cpu").glob("*.json")
    result = json.loads(result_path.read_text())
    solution = result["systems"][0]
    assert result["status"] == solution["status"] == solution["import_status"] == "import_error"
    assert str(path) in solution["import_detail"] and words in solution["import_detail"]
    assert solution["processes_started"] == 0 and solution["sha256"]
    assert {s["status"] for s in solution["shapes"]} == {"import_error"}


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "scoring.run", *args], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_cli_scores_a_binary_file_as_an_import_error(tmp_path):
    """The issue's reproduction: random bytes crashed the scorer with a UnicodeDecodeError, exit 1, no result."""
    path = write(tmp_path, "bin", bytes([0x9D, 0xFF, 0x00, 0x81]) * 1024)
    done = run_cli(*QUICK, f"solution={path}", f"out={tmp_path}")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "import_error" in done.stdout and len(list((tmp_path / "cpu").glob("*.json"))) == 1


# -- option ranges ---------------------------------------------------------------------------------------

OUT_OF_RANGE = {
    "budget_s=-1": "budget_s=-1: must be > 0 (seconds)",
    "budget_s=0": "budget_s=0: must be > 0 (seconds)",
    "budget_s=inf": "budget_s=inf: must be a finite number > 0 (seconds)",
    "import_timeout_s=0": "import_timeout_s=0: must be > 0 (seconds)",
    "shape_timeout_s=-5": "shape_timeout_s=-5: must be > 0 (seconds)",
    "warmup_s=-0.1": "warmup_s=-0.1: must be >= 0 (seconds)",
    "timed_check_rate=1.01": "timed_check_rate=1.01: must be in [0, 1]",
    "timed_check_rate=-0.5": "timed_check_rate=-0.5: must be in [0, 1]",
    "timed_check_rate=nan": "timed_check_rate=nan: must be a finite number in [0, 1]",
    "check_seeds=0": "check_seeds=0: must be >= 1",
    "min_calls=0": "min_calls=0: must be >= 1",
    "max_calls=-3": "max_calls=-3: must be >= 1",
    "max_calls=5": "max_calls=5: must be >= min_calls (10)",
    "target_rse=0": "target_rse=0: must be > 0",
    "peak_tflops=0": "peak_tflops=0: must be > 0 (TFLOPS), or none",
    "peak_gbps=-1": "peak_gbps=-1: must be > 0 (GB/s), or none",
    "seed_secret=../../x": "seed_secret=../../x: must be hex digits",
}


@pytest.mark.parametrize("arg", sorted(OUT_OF_RANGE))
def test_an_option_outside_its_range_names_the_key_the_value_and_the_range(arg):
    with pytest.raises(ConfigError) as refused:
        parse_args(["problem=fp8_gemm", arg])
    assert str(refused.value).startswith(OUT_OF_RANGE[arg]) and "\n" not in str(refused.value)


def test_every_numeric_option_declares_its_range():
    unranged = [
        f.name
        for f in dataclasses.fields(RunConfig)
        if str(f.type) in ("int", "float", "float | None") and f.metadata.get("allowed") is None
    ]
    assert unranged == ["seed"]  # any integer seeds the inputs


def test_edge_values_inside_the_ranges_are_accepted():
    config = parse_args(
        [
            "problem=fp8_gemm",
            "timed_check_rate=0",
            "warmup_s=0",
            "check_seeds=1",
            "min_calls=1",
            "max_calls=1",
            "budget_s=1e-9",
            "target_rse=1e-9",
            "import_timeout_s=0.001",
            "peak_tflops=none",
            "peak_gbps=0.5",
            "seed=-7",
            "seed_secret=00ff",
        ]
    )
    assert (config.timed_check_rate, config.warmup_s, config.min_calls, config.max_calls, config.peak_tflops) == (
        0.0,
        0.0,
        1,
        1,
        None,
    )
    assert parse_args(["problem=fp8_gemm", "timed_check_rate=1"]).timed_check_rate == 1.0


def test_help_shows_each_range():
    text = help_text()
    assert "[15.0] (must be > 0)" in text and "[0.05] (must be in [0, 1])" in text
    assert "[-] (must be > 0, or none)" in text


def test_the_cli_refuses_a_negative_budget_with_one_line_and_exit_two():
    done = run_cli("problem=fp8_gemm", "budget_s=-1", "device=cpu")
    assert done.returncode == 2 and done.stderr == "error: budget_s=-1: must be > 0 (seconds)\n"


def test_the_other_commands_range_check_their_numbers():
    with pytest.raises(OptionError, match=r"^jobs=0: must be >= 1$"):
        parse_corpus_config(["jobs=0"])
    with pytest.raises(OptionError, match=r"^time_limit_s=-5: must be > 0 \(seconds\)$"):
        parse(HarnessConfig, ["time_limit_s=-5"], "python -m harnesses.run")
    assert parse(HarnessConfig, ["trial=0", "time_limit_s=1"], "python -m harnesses.run").trial == 0
