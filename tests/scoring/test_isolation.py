"""Whatever a solution does, the scorer classifies it per shape and keeps the other shapes' results.

Each case is a small solution file for fp8_gemm, scored end to end on the CPU profile (visible shapes:
square_64, k_unaligned_112, decode_m4). `CORRECT` is an honest fp32 computation without a GEMM operator.
"""

import textwrap

import pytest

from tests.problems.helpers import score_on_cpu

CORRECT = """
import torch

def correct(state, a, a_scale):
    products = a.float()[:, None, :] * state["b"].float()[None, :, :]  # no GEMM operator involved
    return (products.sum(-1) * (a_scale * state["b_scale"])).to(torch.bfloat16)
"""

CASES = {
    "syntax_error": ("def run(state, a, a_scale) return a", "import_error", {}, "SyntaxError"),
    "no_run_function": ("x = 1", "import_error", {}, "defines no run"),
    "raises_on_decode": (CORRECT + """
def run(state, a, a_scale):
    if a.shape[0] == 4:
        raise RuntimeError("boom on decode")
    return correct(state, a, a_scale)
""", "runtime_error", {"decode_m4": "runtime_error", "square_64": "passed"}, "boom on decode"),
    "early_exit_on_decode": (CORRECT + """
import sys

def run(state, a, a_scale):
    if a.shape[0] == 4:
        sys.exit(0)
    return correct(state, a, a_scale)
""", "runtime_error", {"decode_m4": "runtime_error", "k_unaligned_112": "passed"}, "X14: early exit"),
    "hangs_on_second_shape": (CORRECT + """
import time

def run(state, a, a_scale):
    if a.shape[1] == 112:
        while True:
            time.sleep(1)
    return correct(state, a, a_scale)
""", "timeout", {"k_unaligned_112": "timeout", "square_64": "passed", "decode_m4": "passed"}, "process group killed"),
    "forges_the_result_channel": (CORRECT + """
import os, sys

def run(state, a, a_scale):
    os.write(int(sys.argv[2]), b"not json at all\\n")
    return correct(state, a, a_scale)
""", "integrity", {"square_64": "integrity"}, "malformed message"),
    "prints_a_fake_result": ("""
import json, torch

def run(state, a, a_scale):
    print(json.dumps({"event": "shape_result", "status": "passed", "fraction": 1.0}), flush=True)
    return torch.zeros((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16)
""", "incorrect", {"square_64": "incorrect"}, "outside"),
    "leaves_half_the_output_unwritten": (CORRECT + """
def run(state, a, a_scale):
    full = correct(state, a, a_scale)
    out = torch.empty_like(full)
    out[: full.shape[0] // 2] = full[: full.shape[0] // 2]
    return out
""", "incorrect", {"square_64": "incorrect"}, "NaN/Inf"),
    "mutates_its_input": (CORRECT + """
def run(state, a, a_scale):
    out = correct(state, a, a_scale)
    a.zero_()
    return out
""", "incorrect", {"square_64": "incorrect"}, "X04: input mutation"),
    "returns_a_tensor_subclass": (CORRECT + """
class Lazy(torch.Tensor):
    pass

def run(state, a, a_scale):
    return correct(state, a, a_scale).as_subclass(Lazy)
""", "incorrect", {"square_64": "incorrect"}, "X05: output contract"),
    "batch_and_skip": (CORRECT + """
_last = {}

def run(state, a, a_scale):
    # X03: does the work on every other call and hands back the previous answer in between.
    _last["calls"] = _last.get("calls", 0) + 1
    if _last["calls"] % 2 == 1:
        _last["out"] = correct(state, a, a_scale)
    return _last["out"]
""", "incorrect", {"square_64": "incorrect"}, "outside"),
    "honest_only_while_warming_up": (CORRECT + """
_calls = [0]

def run(state, a, a_scale):
    # X13: correct for the first calls of each shape (checks and warm-up), zeros once timing is underway.
    _calls[0] += 1
    if _calls[0] > 6:
        return torch.zeros((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16)
    return correct(state, a, a_scale)
""", "incorrect", {"square_64": "incorrect"}, "X02/X03/X13: a timed call's output was wrong"),
    "flips_tf32_at_import": (CORRECT + """
torch.backends.cuda.matmul.allow_tf32 = True  # X15: would loosen the grader's fp32 reference on a GPU

def run(state, a, a_scale):
    return correct(state, a, a_scale)
""", "integrity", {"square_64": "integrity"}, "flag cuda.matmul.allow_tf32"),
    "patches_the_timer_at_import": (CORRECT + """
import time
time.perf_counter = lambda: 0.0

def run(state, a, a_scale):
    return correct(state, a, a_scale)
""", "integrity", {"square_64": "integrity"}, "replaced time.perf_counter"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_solution_behaviour_is_classified(case, tmp_path):
    source, system_status, shape_statuses, detail = CASES[case]
    solution = tmp_path / f"{case}.py"
    solution.write_text(textwrap.dedent(source))
    result = score_on_cpu("fp8_gemm", solution, tmp_path / "results", shapes="visible", shape_timeout_s=20.0)
    shapes = {s["name"]: s for s in result["systems"][0]["shapes"]}
    assert result["status"] == system_status, {n: (s["status"], s.get("detail")) for n, s in shapes.items()}
    for name, status in shape_statuses.items():
        assert shapes[name]["status"] == status, (name, shapes[name].get("detail"))
    details = " ".join(str(s.get("detail", "")) for s in shapes.values())
    assert detail in details
    assert result["score"]["fraction"] == 0.0


def test_a_cache_keyed_on_the_call_is_caught_by_fresh_inputs(tmp_path):
    """X02: outputs cached on the input's shape and storage; fresh inputs and checked calls expose it."""
    solution = tmp_path / "cache.py"
    solution.write_text(textwrap.dedent(CORRECT + """
_cache = {}

def run(state, a, a_scale):
    key = (tuple(a.shape), a.data_ptr())
    if key not in _cache:
        _cache[key] = correct(state, a, a_scale)
    return _cache[key]
"""))
    result = score_on_cpu("fp8_gemm", solution, tmp_path / "results", shapes="visible")
    assert result["status"] == "incorrect"


def test_the_seed_never_reaches_the_solution(tmp_path):
    """X06: the task file holding the mixed seed is gone before the solution is imported, and the
    environment holds no seed; a solution that finds either would crash here, so this one records."""
    solution = tmp_path / "snoop.py"
    solution.write_text(textwrap.dedent(CORRECT + """
import os, sys, json
from pathlib import Path

task = Path(sys.argv[1])
FOUND = {"task_file_exists": task.exists(), "env_names": sorted(k for k in os.environ if "SEED" in k.upper())}
Path(os.environ["SNOOP_OUT"]).write_text(json.dumps(FOUND))

def run(state, a, a_scale):
    return correct(state, a, a_scale)
"""))
    found_path = tmp_path / "found.json"
    import json
    import os
    os.environ["SNOOP_OUT"] = str(found_path)
    try:
        result = score_on_cpu("fp8_gemm", solution, tmp_path / "results", shapes="visible")
    finally:
        del os.environ["SNOOP_OUT"]
    assert result["status"] == "passed"
    assert json.loads(found_path.read_text()) == {"task_file_exists": False, "env_names": []}
    assert result["seeds"]["secret"] and result["seeds"]["mixed"]
