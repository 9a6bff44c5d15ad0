"""w4a16_gemm's library line, gemlite (problems/w4a16_gemm/solutions/baselines/library.py), on the CPU: its
static repack (library.py's unpack_values and gemlite_pack_arguments, imported here with a stand-in gemlite
module) is exact against gemlite's packing and dequantisation as lab/gemlite_repack.py reimplements them, the
line fails at import without gemlite (-> not_available), and its measurement script's arguments and table
behave.

Exactness: for random weights drawn by the problem's own make_weights (several K and N, group size 128, bf16
scales and integer zero points), the weight gemlite would dequantise from the repacked tensors, by a pure-torch
reimplementation of its unpacking (gemlite 0.6.0.post2: triton_kernels/gemm_kernels.py, gemm_INT_kernel's
b_ptrs and q_shift; triton_kernels/utils.py, dequantize() with W_group_mode 3; core.py,
GemLiteLinearTriton.pack() with fma_mode=False), is bit-identical to the problem's reference dequantisation,
in fp64 and rounded to bf16. Where gemlite's source is importable (its bitpack.py needs only torch and
triton, but gemlite's package __init__ queries CUDA), its own pack_weights_over_cols_torch is checked too."""

import importlib
import importlib.util
import os
import subprocess
import sys
import types

import pytest
import torch

from scoring.problem import import_file, load_problem
from scoring.spec import find_problem
from tests.problems.helpers import stand_in_module

PROBLEM = load_problem(find_problem("w4a16_gemm"))
P = PROBLEM.module
LAB = PROBLEM.spec.directory / "lab"
LIBRARY = PROBLEM.spec.directory / "solutions" / "baselines" / "library.py"
REPACK = import_file(LAB / "gemlite_repack.py", "w4_gemlite_repack_test")


def stand_in_gemlite():
    """The names library.py takes from gemlite at import (gemlite is not installed here, and its import queries
    CUDA); set_native_atomic_bfp16 records its arguments in native_atomic_bfp16."""
    calls = []
    return stand_in_module(
        "gemlite",
        __version__="stand-in",
        DType=types.SimpleNamespace(BF16="bf16", FP16="fp16"),
        GemLiteLinearTriton=None,
        forward_functional=None,
        native_atomic_bfp16=calls,
        set_native_atomic_bfp16=calls.append,
    )


with stand_in_gemlite() as _stub:
    LINE = import_file(LIBRARY, "w4_gemlite_library_helpers")
    ATOMICS_SET_AT_IMPORT = list(_stub.native_atomic_bfp16)

# (K, N): one group, several groups, N not a multiple of 64 (the contract: N a multiple of 16).
SIZES = [(128, 16), (256, 48), (384, 96), (1024, 64)]


def _weights(K, N, seed):
    return P.make_weights({"M": 1, "N": N, "K": K}, torch.Generator().manual_seed(seed), torch.device("cpu"))


def _repacked(weights):
    """What gemlite's pack() stores from the line's gemlite_pack_arguments(): packed words, (K/128, N) scales
    and zeros."""
    args = LINE.gemlite_pack_arguments(**weights)
    N = weights["qweight"].shape[1]
    return (
        REPACK.pack_over_cols(args["W_q"]),
        REPACK.pack_meta(args["scales"], N),
        REPACK.pack_meta(args["zeros"], N),
        args,
    )


@pytest.mark.parametrize("K,N", SIZES)
def test_gemlite_packs_our_values_into_our_qweight(K, N):
    weights = _weights(K, N, seed=K + N)
    packed, scales, zeros, args = _repacked(weights)
    assert args["W_q"].dtype == torch.uint8 and args["W_q"].shape == (N, K)
    assert int(args["W_q"].max()) <= 15
    assert args["fma_mode"] is False  # W_group_mode 3: (q - zero) * scale, no pre-rounded -zero * scale
    assert packed.dtype == torch.int32 and packed.shape == (K // 8, N)
    assert torch.equal(packed, weights["qweight"])  # gemlite's 4-bit layout is GPTQ's, bit for bit
    # Scales and zeros come back as the problem's own tensors (views in, views out: no copy).
    for mine, theirs in ((scales, weights["scales"]), (zeros, weights["zeros"])):
        assert torch.equal(mine, theirs) and mine.data_ptr() == theirs.data_ptr()


@pytest.mark.parametrize("K,N", SIZES)
def test_gemlite_dequantisation_of_the_repack_is_bit_identical_to_the_reference(K, N):
    weights = _weights(K, N, seed=7 * K + N)
    packed, scales, zeros, _ = _repacked(weights)
    ours = P.dequantize(weights["qweight"], weights["scales"], weights["zeros"], torch.float64)
    theirs = REPACK.gemlite_dequantize(packed, scales, zeros, group_size=P.GROUP_SIZE, dtype=torch.float64)
    assert theirs.dtype == torch.float64 and theirs.shape == (K, N)
    assert torch.equal(theirs, ours)
    # The kernel's own arithmetic (meta_dtype = bf16): q - zero is exact, the product rounds once to bf16.
    in_bf16 = REPACK.gemlite_dequantize(packed, scales, zeros, group_size=P.GROUP_SIZE, dtype=torch.bfloat16)
    assert torch.equal(in_bf16, ours.to(torch.bfloat16))


def test_extreme_nibbles_and_negative_words_survive_the_repack():
    """All 15s make every word negative (bit 31 set); alternate 0 / 15 and a lone 15 in the top nibble."""
    K, N = 256, 32
    for q in (
        torch.full((K, N), 15),
        torch.zeros((K, N), dtype=torch.int64),
        (torch.arange(K)[:, None] % 2 * 15).expand(K, N),
        torch.where(torch.arange(K)[:, None] % 8 == 7, 15, 0).expand(K, N),
    ):
        weights = dict(_weights(K, N, seed=3), qweight=P.pack_int4(q.contiguous()))
        packed, scales, zeros, args = _repacked(weights)
        assert torch.equal(args["W_q"].to(torch.int64), q.T)
        assert torch.equal(packed, weights["qweight"])
        ours = P.dequantize(weights["qweight"], weights["scales"], weights["zeros"], torch.float64)
        assert torch.equal(REPACK.gemlite_dequantize(packed, scales, zeros, dtype=torch.float64), ours)


def _gemlite_source_module(name):
    """gemlite.<name> loaded from its installed files without running gemlite/__init__.py (which queries CUDA),
    or None where gemlite is not installed (it is not a project dependency; the GPU run installs it)."""
    spec = importlib.util.find_spec("gemlite")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = types.ModuleType("gemlite_source_only")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules.setdefault("gemlite_source_only", package)
    return importlib.import_module(f"gemlite_source_only.{name}")


def test_gemlite_own_torch_packing_matches_the_reimplementation_where_installed():
    try:
        bitpack = _gemlite_source_module("bitpack")
    except ImportError as exc:  # e.g. no triton on this machine
        pytest.skip(f"gemlite's bitpack.py is not importable here: {exc}")
    if bitpack is None:
        pytest.skip("gemlite is not installed (PYTHONPATH=<pip --target dir of .whl/gemlite-*.whl> runs this)")
    for K, N in SIZES:
        weights = _weights(K, N, seed=K * N)
        W_q = LINE.gemlite_pack_arguments(**weights)["W_q"]
        theirs, elements_per_sample = bitpack.pack_weights_over_cols_torch(
            W_q, W_nbits=4, packing_bitwidth=32, transpose=True
        )
        assert elements_per_sample == 8
        assert torch.equal(theirs.contiguous(), REPACK.pack_over_cols(W_q))
        assert torch.equal(theirs.contiguous(), weights["qweight"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU machine with gemlite the line may import")
def test_the_line_fails_at_import_without_gemlite_or_a_gpu():
    """The scorer records a reference line whose import fails as not_available (scoring/run.py): gemlite absent
    raises ImportError; gemlite present on a CUDA-less torch raises at its import (it queries the device)."""
    with pytest.raises(Exception):  # noqa: B017
        import_file(LIBRARY, "w4_gemlite_line_test")
    assert "w4_gemlite_line_test" not in sys.modules


def test_the_line_sets_fp32_atomics_at_import_and_says_so():
    """gemlite's default native bf16 split-K atomics failed the check at decode_m1_70b_up on an H100
    (lab/measurements/gemlite_visible_h100.json): the line turns them off before any kernel runs."""
    assert ATOMICS_SET_AT_IMPORT == [False]
    assert "fp32 split-K atomics" in LINE.LABEL and LINE.GROUP_SIZE == P.GROUP_SIZE


@pytest.mark.slow
def test_gemlite_own_gemv_kernel_matches_the_reference_in_the_interpreter_where_installed():
    """lab/gemlite_interpret_check.py (its own process: it fakes an H100 for gemlite's import-time queries):
    gemlite's GEMV kernel on the repacked weight, fp16, in Triton's CPU interpreter, passes the problem's check
    for M = 1, 2, 4, and fails it with the zero points dropped (a control)."""
    spec = importlib.util.find_spec("gemlite")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("gemlite is not installed (PYTHONPATH=<pip --target dir of .whl/gemlite-*.whl> runs this)")
    gemlite_dir = str(os.path.dirname(spec.submodule_search_locations[0]))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [gemlite_dir, os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, str(LAB / "gemlite_interpret_check.py")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("-> as expected") == 6


MEASURE = import_file(LAB / "measure_gemlite.py", "w4_measure_gemlite_test")


def test_measure_arguments():
    args = MEASURE.parse_args(["--out", "x.json"])
    assert args.lines == list(MEASURE.LINES) and args.shapes == "visible" and args.min_calls >= 50
    args = MEASURE.parse_args(["--out", "x.json", "--lines", "gemlite,tinygemm", "--min-calls", "80"])
    assert args.lines == ["gemlite", "tinygemm"] and args.min_calls == 80
    for bad in (["--out", "x.json", "--lines", "marlin"], ["--out", "x.json", "--min-calls", "10"], []):
        with pytest.raises(SystemExit):
            MEASURE.parse_args(bad)


def test_measure_shape_selection_uses_problem_toml():
    spec = PROBLEM.spec
    shapes, visible = MEASURE.select_shapes(spec, "visible")
    assert [s.name for s in shapes] == visible == [s.name for s in spec.gpu_shapes.visible]
    shapes, _ = MEASURE.select_shapes(spec, "all")
    assert len(shapes) == len(spec.gpu_shapes.visible) + len(spec.gpu_shapes.held_out)
    shapes, _ = MEASURE.select_shapes(spec, "decode_m7_70b_gate_up,decode_m1_70b_up")
    assert [s.name for s in shapes] == ["decode_m7_70b_gate_up", "decode_m1_70b_up"]
    with pytest.raises(SystemExit):
        MEASURE.select_shapes(spec, "no_such_shape")


def test_measure_table_geomeans_the_visible_shapes_and_lists_failures():
    names = ["decode_m1_70b_up", "decode_m16_70b_down", "decode_m7_70b_gate_up"]
    rows = [
        {"shape": names[0], "line": "gemlite", "fraction": 0.5, "passed": True},
        {"shape": names[1], "line": "gemlite", "fraction": 0.125, "passed": True},
        {"shape": names[2], "line": "gemlite", "fraction": 0.9, "passed": True},
        {"shape": names[0], "line": "tinygemm", "fraction": 0.0, "passed": False},
        {"shape": names[1], "line": "tinygemm", "error": "RuntimeError: boom"},
    ]
    text = MEASURE.table(rows, names, names[:2], ["gemlite", "tinygemm"])
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["line", "m1", "m16", "m7"]
    gemlite = lines[1].split()
    assert gemlite[0] == "gemlite" and gemlite[-1] == "0.250"  # sqrt(0.5 * 0.125): held-out m7 left out
    assert lines[2].split()[-1] == "0.000"  # a failed shape zeroes the geomean
    assert "2 (shape, line) with errors or failed checks" in text and "RuntimeError: boom" in text


def test_measure_runs_end_to_end_on_the_cpu_shapes(tmp_path):
    """--device cpu: the script's loop, checks, timer, JSON and table on the CPU deck with tinygemm (the one
    line with a CPU path); a smoke test of the script, not a measurement."""
    import json

    out = tmp_path / "m.json"
    MEASURE.main(["--device", "cpu", "--lines", "tinygemm", "--budget-s", "0.3", "--out", str(out)])
    record = json.loads(out.read_text())
    assert record["versions"]["tinygemm"].startswith("torch ") and record["hardware"]["profile"] == "cpu"
    cpu_visible = [s.name for s in PROBLEM.spec.cpu_shapes.visible]
    assert [r["shape"] for r in record["rows"]] == cpu_visible
    for row in record["rows"]:
        assert row["passed"] and row["calls"] >= 50 and row["fraction"] > 0, row
    assert record["table"].splitlines()[1].startswith("tinygemm")
