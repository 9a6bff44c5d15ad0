"""`python -m board.export`: the results as one flat table (issue 36, "An export command").

The results folder is built in tmp_path from copies of committed result files: a house kernel run with its
reference lines (kda: a torch.compile line measured on no shape), agents' solutions published by kernelbench.com
and re-scored here, one that failed on held-out shapes (kda, codex) and one on an H200 (moe_swiglu, timeout), a
failed run without an agent (fp8_gemm, crashed), and our harness's own end-to-end run with a fake agent CLI
(fp8_gemm, claude / fake-house); beside them, files the export must skip with a warning.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")

from board.export import main  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
HOUSE = "h100_sxm/20261126T111424Z-kda-house-ceddbe.json"
AGENT_FAILED = "h100_sxm/20261125T084832Z-kda-solution-029f4e.json"
CRASHED = "h100_sxm/20261122T034842Z-fp8_gemm-crash_on_decode-10173c.json"
RESCORED_H200 = "h200_sxm/20261126T110820Z-moe_swiglu-solution-e7e6e7.json"
HARNESS_TEST = "h100_sxm/20261122T041757Z-fp8_gemm-solution-b86f4c.json"
COPIED = (HOUSE, AGENT_FAILED, CRASHED, RESCORED_H200, HARNESS_TEST)

# The table's contract, written out: the fixed columns in order, with the parameters of kda (B H K T V),
# fp8_gemm (M N K) and moe_swiglu (E H I T routing topk) after shape_name, sorted by name.
EXPECTED_COLUMNS = [
    "run_id", "created_utc", "result_file", "hardware", "hardware_profile", "gpu_name", "scorer_version",
    "scorer_commit", "scorer_dirty", "audits", "unranked_reasons", "verdict", "problem", "shape_set", "shape_name",
    "param_B", "param_E", "param_H", "param_I", "param_K", "param_M", "param_N", "param_routing", "param_T",
    "param_topk", "param_V",
    "system_role", "system_name", "system_label", "system_kind", "status", "system_status", "failure_class",
    "fraction", "median_ms", "p10_ms", "p90_ms", "rse", "calls", "flops", "bytes_moved", "achieved_tflops",
    "achieved_gbps", "system_score", "system_visible_fraction", "system_held_out_fraction",
    "agent", "agent_harness", "agent_model", "agent_effort", "agent_rescored_from", "run_status", "run_score",
]


def copy_results(folder: Path, names=COPIED) -> Path:
    for name in names:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((REPO / "results" / name).read_bytes())
    return folder


def committed(name: str) -> dict:
    return json.loads((REPO / "results" / name).read_text())


def export(tmp_path: Path, results: Path, *extra: str, name: str = "table") -> tuple[int, Path]:
    out = tmp_path / "out" / name
    return main([f"results={results}", f"out={out}", *extra]), out


@pytest.fixture
def table(tmp_path):
    results = copy_results(tmp_path / "results")
    code, out = export(tmp_path, results)
    assert code == 0
    return pd.read_parquet(out.with_suffix(".parquet")), out


def test_columns_are_exactly_the_documented_set(table):
    frame, out = table
    assert list(frame.columns) == EXPECTED_COLUMNS
    assert out.with_suffix(".csv").read_text().splitlines()[0] == ",".join(EXPECTED_COLUMNS)


def test_every_column_is_documented_in_results_md(table):
    frame, _ = table
    text = (REPO / "docs" / "results.md").read_text()
    export_section = text[text.index("## Export"):]
    fixed = [c for c in frame.columns if not c.startswith("param_")]
    missing = [c for c in fixed if f"`{c}`" not in export_section]
    assert not missing, f"columns not in docs/results.md's Export section: {missing}"
    assert "`param_<name>`" in export_section


def test_one_row_per_run_system_shape(table):
    frame, _ = table
    expected = []
    for name in COPIED:
        data = committed(name)
        for system in data["systems"]:
            # A system measured on no shape (the kda house run's compiled line) is one row without a shape.
            expected += [(data["run_id"], system["role"], shape["name"]) for shape in system["shapes"]] or \
                        [(data["run_id"], system["role"], None)]
    got = [(r.run_id, r.system_role, None if pd.isna(r.shape_name) else r.shape_name)
           for r in frame.itertuples()]
    assert sorted(got, key=str) == sorted(expected, key=str)
    assert len(got) == len(set(got))
    compiled = frame[(frame.run_id == committed(HOUSE)["run_id"]) & (frame.system_role == "compiled")]
    assert len(compiled) == 1 and compiled.system_status.iloc[0] == "not_available"


def test_shape_params_spread_into_columns(table):
    frame, _ = table
    for name in COPIED:
        data = committed(name)
        rows = frame[(frame.run_id == data["run_id"]) & (frame.system_role == "solution")].set_index("shape_name")
        own = {f"param_{k}" for shape in data["shapes"] for k in shape["params"]}
        for shape in data["systems"][0]["shapes"]:
            row = rows.loc[shape["name"]]
            assert {k: row[f"param_{k}"] for k in shape["params"]} == shape["params"]
            others = [c for c in frame.columns if c.startswith("param_") and c not in own]
            assert all(pd.isna(row[c]) for c in others), f"{name} {shape['name']}: another problem's parameter set"
    assert str(frame.param_T.dtype) == "Int64"


def test_values_follow_the_result_files(table):
    frame, _ = table
    house = committed(HOUSE)
    solution = house["systems"][0]
    shape = solution["shapes"][0]
    row = frame[(frame.run_id == house["run_id"]) & (frame.system_role == "solution")
                & (frame.shape_name == shape["name"])].iloc[0]
    assert row.median_ms == shape["timing"]["median_ms"] and row.p10_ms == shape["timing"]["p10_ms"]
    assert row.p90_ms == shape["timing"]["p90_ms"] and row.rse == shape["timing"]["rse"]
    assert row.calls == shape["timing"]["count"] and row.flops == shape["flops"]
    assert row.bytes_moved == shape["bytes_moved"] and row.fraction == shape["fraction"]
    assert row.system_kind == "house" and pd.isna(row.agent) and pd.isna(row.failure_class)
    assert row.hardware == "h100_sxm" and row.gpu_name == house["hardware"]["name"]
    assert row.scorer_commit == house["ceiling"]["commit"] and bool(row.scorer_dirty) is house["ceiling"]["dirty"]
    assert bool(row.audits) is house["config"]["audits"] and row.run_score == house["score"]["fraction"]

    agent_run = committed(AGENT_FAILED)
    rows = frame[frame.run_id == agent_run["run_id"]]
    assert set(rows.agent_harness) == {"codex"} and set(rows.agent_model) == {"gpt-5.5"}
    assert set(rows.agent_effort) == {"xhigh"} and set(rows.agent) == {"codex/gpt-5.5/xhigh"}
    assert set(rows.failure_class) == {"nan_inf"} and set(rows.system_kind) == {"rescored"}
    assert set(rows.agent_rescored_from) == {"kernelbench.com"}

    harness_test = frame[frame.run_id == committed(HARNESS_TEST)["run_id"]]
    assert set(harness_test.agent) == {"claude/fake-house/default"} and set(harness_test.system_kind) == {"test"}
    assert harness_test.agent_rescored_from.isna().all() and harness_test.failure_class.isna().all()
    assert set(harness_test.unranked_reasons.str.split("; ").explode()) >= {"harness test (fake agent)"}

    rescored = frame[frame.run_id == committed(RESCORED_H200)["run_id"]]
    assert set(rescored.agent_rescored_from) == {"kernelbench.com"} and set(rescored.hardware) == {"h200_sxm"}
    assert set(rescored.system_kind) == {"rescored"} and set(rescored.failure_class) == {"timeout"}


def test_absent_values_are_null_never_the_string_nan(table):
    frame, out = table
    failed = frame[frame.status == "incorrect"]
    assert len(failed) and failed.fraction.isna().all() and failed.median_ms.isna().all()
    no_shape = frame[frame.shape_name.isna()]
    assert no_shape[["shape_set", "status", "fraction", "calls", "param_T"]].isna().all().all()
    cells = {cell for line in out.with_suffix(".csv").read_text().splitlines() for cell in line.split(",")}
    assert not cells & {"nan", "NaN", "<NA>", "None", "inf"}


def test_csv_and_parquet_round_trip_through_pandas(table):
    frame, out = table
    from_csv = pd.read_csv(out.with_suffix(".csv"), dtype={c: str(t) for c, t in frame.dtypes.items()})
    pd.testing.assert_frame_equal(from_csv, frame)
    assert frame.fraction.notna().sum() > 0 and str(frame.fraction.dtype) == "Float64"


def with_old_nan(value):
    """A migrated result as the scorer wrote it before strict JSON: a score over a set with no shapes NaN."""
    if isinstance(value, dict):
        return {k: math.nan if v is None and k in ("visible_fraction", "held_out_fraction", "generalisation_gap")
                else with_old_nan(v) for k, v in value.items()}
    return [with_old_nan(v) for v in value] if isinstance(value, list) else value


def test_old_files_with_bare_nan_read_as_null(tmp_path):
    strict = copy_results(tmp_path / "strict", (HOUSE,))
    old = tmp_path / "old" / HOUSE
    old.parent.mkdir(parents=True)
    old.write_text(json.dumps(with_old_nan(committed(HOUSE)), allow_nan=True))
    assert ": NaN" in old.read_text()
    assert export(tmp_path, strict, name="strict")[0] == 0 and export(tmp_path, old.parents[1], name="old")[0] == 0
    new_table = pd.read_parquet(tmp_path / "out" / "strict.parquet")
    old_table = pd.read_parquet(tmp_path / "out" / "old.parquet")
    compiled = old_table[old_table.system_role == "compiled"]
    assert compiled.system_visible_fraction.isna().all() and compiled.system_held_out_fraction.isna().all()
    pd.testing.assert_frame_equal(old_table.drop(columns="result_file"), new_table.drop(columns="result_file"))


def test_bad_files_are_skipped_with_one_line_each(tmp_path, capsys):
    results = copy_results(tmp_path / "results", (HOUSE,))
    (results / "h100_sxm" / "truncated.json").write_text('{"schema": "ceiling.result/1", "run_id": ')
    (results / "h100_sxm" / "corpus.json").write_text(json.dumps({"schema": "ceiling.corpus/1", "cases": []}))
    (results / "h100_sxm" / "list.json").write_text("[1, 2]")
    code, out = export(tmp_path, results, "format=csv")
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    for bad in ("truncated.json", "corpus.json", "list.json"):
        lines = [line for line in err if bad in line]
        assert len(lines) == 1 and lines[0].startswith("skipped: "), err
    assert len(err) == 3
    frame = pd.read_csv(out.with_suffix(".csv"))
    assert set(frame.run_id) == {committed(HOUSE)["run_id"]}
    assert not out.with_suffix(".parquet").exists()


def test_hardware_keeps_only_that_hardware(tmp_path):
    results = copy_results(tmp_path / "filtered")
    code, out = export(tmp_path, results, "hardware=h200_sxm", name="h200")
    assert code == 0
    frame = pd.read_parquet(out.with_suffix(".parquet"))
    assert set(frame.run_id) == {committed(RESCORED_H200)["run_id"]}


def test_out_names_a_folder_or_a_file_with_either_extension(tmp_path):
    results = copy_results(tmp_path / "results", (HOUSE,))
    assert main([f"results={results}", f"out={tmp_path}", "format=csv"]) == 0
    assert (tmp_path / "ceiling.csv").is_file()
    assert main([f"results={results}", f"out={tmp_path / 'named.parquet'}"]) == 0
    assert (tmp_path / "named.csv").is_file() and (tmp_path / "named.parquet").is_file()
    assert not list(tmp_path.glob(".*.tmp")) and not (tmp_path / "named.parquet.csv").exists()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "board.export", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [("help",), ("-h",), ("--help",), ("format=csv", "--help", "hardware=x")])
def test_help_anywhere_prints_every_key_and_exits_0_without_torch(args):
    done = run_cli(*args)
    assert done.returncode == 0
    for key in ("results", "out", "format", "hardware", "cpu"):
        assert f"\n  {key} " in done.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert not [m for m in imported if m.split(".")[0] in ("torch", "pandas", "pyarrow")]


@pytest.mark.parametrize("args, named", [
    (("format=xlsx",), "format"),
    (("fromat=csv",), "did you mean 'format'"),
    (("results=no_such_folder",), "results=no_such_folder"),
    (("hardware=h100",), "did you mean 'h100_sxm'"),
    (("cpu=maybe",), "cpu"),
])
def test_usage_errors_exit_2_with_one_line(args, named, tmp_path):
    done = subprocess.run([sys.executable, "-m", "board.export", *args, f"out={tmp_path / 'x'}"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0], done.stderr
    assert not list(tmp_path.iterdir())


def test_a_real_export_does_not_import_torch(tmp_path):
    results = copy_results(tmp_path / "results", (HOUSE,))
    done = run_cli(f"results={results}", f"out={tmp_path / 'x'}", "format=csv")
    assert done.returncode == 0 and "wrote" in done.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "pandas" in imported and not [m for m in imported if m.split(".")[0] == "torch"]
