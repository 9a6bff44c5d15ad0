"""A result file's kernel names, one table per system (scoring/kernel_name_table.py), and the writer that uses it."""

import json

import pytest

from scoring.kernel_name_table import expanded, tabulated
from scoring.result import write_result
from tests.scoring.test_result_schema import committed_results

GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)"
SPLIT_K = "void splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, true, false>(Params)"
HOUSE = "_fp8_gemm_kernel"


def _shape(name: str, names: list | None) -> dict:
    record = {"calls_named": 3} if names is None else {"calls_named": 3, "kernel_names": names, "read_s": 0.1}
    return {"name": name, "status": "passed", "kernel_record": record}


def _result(*systems: dict) -> dict:
    return {"schema": "ceiling.result/1", "run_id": "r1", "systems": list(systems), "status": "passed"}


def _system(role: str, shapes: list) -> dict:
    return {"role": role, "name": role, "status": "passed", "shapes": shapes, "audits": []}


def test_a_system_keeps_each_distinct_name_once_and_its_shapes_index_them_in_place():
    library = _system("library", [_shape("a", [GEMM, SPLIT_K]), _shape("b", [GEMM, SPLIT_K]), _shape("c", [GEMM])])
    house = _system("solution", [_shape("a", [HOUSE]), _shape("b", [HOUSE])])
    table = tabulated(_result(house, library))
    library_out = table["systems"][1]
    assert library_out["kernel_names"] == [GEMM, SPLIT_K]
    assert list(library_out) == ["role", "name", "status", "kernel_names", "shapes", "audits"]  # just above shapes
    assert [s["kernel_record"]["kernel_name_ids"] for s in library_out["shapes"]] == [[0, 1], [0, 1], [0]]
    # The ids take the names' place in the record; the record's other fields keep theirs.
    assert list(library_out["shapes"][0]["kernel_record"]) == ["calls_named", "kernel_name_ids", "read_s"]
    assert table["systems"][0]["kernel_names"] == [HOUSE]
    assert len(json.dumps(table)) < len(json.dumps(_result(house, library)))


def test_expanding_gives_back_the_result_the_scorer_held_key_for_key():
    original = _result(
        _system("solution", [_shape("a", [HOUSE]), _shape("p", None)]),
        _system("library", [_shape("a", [GEMM, SPLIT_K]), _shape("b", [SPLIT_K, GEMM])]),
    )
    assert json.dumps(expanded(tabulated(original))) == json.dumps(original)  # order included


def test_tabulating_twice_changes_nothing_so_a_cached_line_copied_from_a_file_stays_as_it_was():
    once = tabulated(_result(_system("library", [_shape("a", [SPLIT_K, GEMM]), _shape("b", [GEMM])])))
    assert json.dumps(tabulated(once)) == json.dumps(once)
    # A line cached from a file written before the table (names per shape) beside one copied from a new file.
    old_line = _system("eager", [_shape("a", [GEMM])])
    mixed = tabulated(_result(once["systems"][0], old_line))
    assert mixed["systems"][0] == once["systems"][0]
    assert mixed["systems"][1]["shapes"][0]["kernel_record"]["kernel_name_ids"] == [0]


def test_a_system_without_kernel_names_is_left_as_it_is():
    cpu = _system("solution", [_shape("a", None), {"name": "b", "status": "import_error"}])
    no_shapes = {"role": "library", "name": "x", "status": "not_available", "detail": "absent"}
    result = _result(cpu, no_shapes)
    assert tabulated(result) == result and expanded(result) == result


def test_ids_that_do_not_index_the_table_are_an_error_naming_the_field():
    broken = _result(
        dict(_system("library", [{"name": "a", "kernel_record": {"kernel_name_ids": [0, 5]}}]), kernel_names=[GEMM])
    )
    with pytest.raises(ValueError, match=r"kernel_record.kernel_name_ids \[0, 5\] does not index .*1 names"):
        expanded(broken)


def test_the_writer_stores_the_table_and_leaves_the_callers_result_alone(tmp_path):
    result = _result(_system("library", [_shape("a", [GEMM]), _shape("b", [GEMM])]))
    before = json.dumps(result)
    path = write_result(result, tmp_path)
    assert json.dumps(result) == before  # the scorer's in-memory result still holds names per shape
    written = json.loads(path.read_text())
    assert written["systems"][0]["kernel_names"] == [GEMM]
    assert path.read_text().count("cutlass_80_tensorop") == 1
    assert expanded(written) == result


def test_every_committed_result_stores_its_kernel_names_once_per_system():
    results = committed_results()
    assert len(results) > 800
    tabulated_systems = 0
    for path, data in results:
        for system in data["systems"]:
            for shape in system.get("shapes", []):
                record = shape.get("kernel_record") or {}
                assert "kernel_names" not in record, f"{path}: {shape.get('name')} holds its names (relayout it)"
                if "kernel_name_ids" in record:
                    assert all(0 <= i < len(system["kernel_names"]) for i in record["kernel_name_ids"]), path
            tabulated_systems += "kernel_names" in system
    assert tabulated_systems > 500
