"""The static audit of a solution's source (X21): syntax tree, not substrings."""

import textwrap

import pytest

from scoring.import_audit import audit_files
from tests.problems.helpers import score_on_cpu

OPS = ("_scaled_mm", "mm", "topk", "softmax", "dot")
IMPORTS = ("flash_attn", "vllm")


def findings_for(tmp_path, source):
    path = tmp_path / "solution.py"
    path.write_text(textwrap.dedent(source))
    return [f.what for f in audit_files([path], IMPORTS, OPS)]


@pytest.mark.parametrize("source,words", [
    ("import torch\ny = torch._scaled_mm", "'_scaled_mm'"),
    ("import torch.nn.functional as F\nF.softmax", "'softmax'"),
    ("def f(x):\n    return x.topk(3)", "'topk'"),
    ("import torch\ntorch.ops.aten.mm.default", "'mm'"),
    ("from torch import mm", "imports forbidden operator 'mm'"),
    ("import torch\ng = getattr(torch, 'topk')", "through getattr"),
    ("import flash_attn.flash_attn_interface as fa", "forbidden module 'flash_attn.flash_attn_interface'"),
    ("from vllm import _custom_ops", "forbidden module 'vllm._custom_ops'"),
    ("import importlib\nimportlib.import_module('flash_attn')", "dynamically"),
])
def test_forbidden_names_are_found(tmp_path, source, words):
    found = findings_for(tmp_path, source)
    assert any(words in f for f in found), found


def test_triton_and_unrelated_names_are_not_flagged(tmp_path):
    source = """
    import triton
    import triton.language as tl
    from triton.language import dot
    import torch

    @triton.jit
    def k(a, b):
        return tl.dot(a, b) + triton.language.dot(a, b)

    # torch.topk in a comment, and in a string: "torch._scaled_mm"
    summary = torch.empty(3).sum()
    """
    assert findings_for(tmp_path, source) == []


def test_a_solution_that_hides_a_forbidden_call_from_the_watched_calls_is_refused(tmp_path):
    """X13 + X21: calls torch._scaled_mm only when no dispatch mode watches; the source still names it."""
    solution = tmp_path / "phase_detect.py"
    solution.write_text(textwrap.dedent("""
        import torch
        from torch.utils._python_dispatch import _get_current_dispatch_mode

        def run(state, a, a_scale):
            if _get_current_dispatch_mode() is None:  # timed calls run unwatched
                return torch._scaled_mm(a, state["b"].T, scale_a=a_scale, scale_b=state["b_scale"],
                                        out_dtype=torch.bfloat16)
            products = a.float()[:, None, :] * state["b"].float()[None, :, :]
            return (products.sum(-1) * (a_scale * state["b_scale"])).to(torch.bfloat16)
    """))
    result = score_on_cpu("fp8_gemm", solution, tmp_path / "results", shapes="visible")
    system = result["systems"][0]
    assert result["status"] == "forbidden_op"
    assert "X21: phase_detect.py:7" in system["import_detail"] and "_scaled_mm" in system["import_detail"]
