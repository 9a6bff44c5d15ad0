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
""", "runtime_error", {"decode_m4": "runtime_error", "k_unaligned_112": "passed"}, "early exit, X14"),
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
""", "incorrect", {"square_64": "incorrect"}, "input mutation (X04)"),
    "returns_a_tensor_subclass": (CORRECT + """
class Lazy(torch.Tensor):
    pass

def run(state, a, a_scale):
    return correct(state, a, a_scale).as_subclass(Lazy)
""", "incorrect", {"square_64": "incorrect"}, "output contract (X05)"),
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
