"""problem.toml validation: every malformed input fails at load time naming the file, the field and the fix."""

import shutil
from pathlib import Path

import pytest

from scoring.problem import load_problem
from scoring.spec import SpecError, discover_problems, find_problem, load_spec

FP8 = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm"


@pytest.fixture
def problem_copy(tmp_path):
    target = tmp_path / "copied"
    shutil.copytree(FP8, target, ignore=shutil.ignore_patterns("lab", "__pycache__"))
    return target


def edit_toml(problem_dir: Path, old: str, new: str) -> None:
    path = problem_dir / "problem.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_fp8_gemm_loads_with_its_declared_sets():
    spec = load_spec(FP8)
    assert spec.precision == "fp8"
    assert [s.name for s in spec.gpu_shapes.visible][:1] == ["square_8192"]
    assert spec.gpu_shapes.held_out and spec.cpu_shapes.visible
    assert "_scaled_mm" in spec.forbidden_ops
    assert spec.tolerance.rtol == pytest.approx(1.6e-2)


@pytest.mark.parametrize(
    "old,new,field,words",
    [
        ('precision = "fp8"', 'precison = "fp8"', "precison", "did you mean 'precision'"),
        ("rtol = 1.6e-2", 'rtol = "tight"', "tolerance.rtol", "not a number"),
        ("rtol = 1.6e-2", "", "tolerance.rtol", "is missing"),
        ('precision = "fp8"', 'precision = "fp9"', "precision", "not a known precision"),
        (
            "M = { min = 1, max = 8192, log = true }",
            "M = { min = 1, max = 8192, lgo = true }",
            "shapes.property.M.lgo",
            "unknown key",
        ),
        ('name = "k_unaligned_6000"', 'name = "square_8192"', "shapes", "used twice"),
        ("M = 6144", 'M = "6144"', "shapes.visible[1].M", "not an integer"),
        ('title = "FP8 GEMM"', "", "title", "is missing"),
    ],
)
def test_malformed_data_names_file_field_and_fix(problem_copy, old, new, field, words):
    edit_toml(problem_copy, old, new)
    with pytest.raises(SpecError) as raised:
        load_spec(problem_copy)
    message = str(raised.value)
    assert str(problem_copy / "problem.toml") in message
    assert f"field '{field}'" in message
    assert words in message
    assert "Fix:" in message


def test_toml_syntax_error_is_a_spec_error(problem_copy):
    (problem_copy / "problem.toml").write_text("title = \n")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec(problem_copy)


def test_formula_that_fails_on_a_shape_is_caught_at_load(problem_copy):
    path = problem_copy / "problem.py"
    path.write_text(
        path.read_text().replace(
            'return 2 * shape["M"] * shape["N"] * shape["K"]',
            'return 2 * shape["M"] * shape["N"] * shape["K"] // (shape["M"] - 16)',
        )
    )
    with pytest.raises(SpecError) as raised:
        load_problem(problem_copy)
    assert "field 'flops'" in str(raised.value) and "decode_m16" in str(raised.value)


def test_missing_function_is_caught_at_load(problem_copy):
    path = problem_copy / "problem.py"
    path.write_text(path.read_text().replace("def reference(", "def reference_fp64("))
    with pytest.raises(SpecError, match="field 'reference'"):
        load_problem(problem_copy)


def test_property_shapes_are_drawn_in_range_and_reproducibly():
    deck = load_spec(FP8).gpu_shapes
    first, again = deck.property.draw(7), deck.property.draw(7)
    assert first == again and first != deck.property.draw(8)
    for shape in first:
        assert 1 <= shape.params["M"] <= 8192
        assert shape.params["N"] % 16 == 0 and 256 <= shape.params["N"] <= 8192
        assert shape.params["K"] % 16 == 0 and 256 <= shape.params["K"] <= 8192


def test_discovery_walks_folders_and_suggests_names():
    assert "fp8_gemm" in discover_problems()
    with pytest.raises(SpecError, match="did you mean 'fp8_gemm'"):
        find_problem("fp8_gemn")
