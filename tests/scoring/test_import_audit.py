"""The static audit of a solution's source (X21): syntax tree, not substrings.

A whole solution that hides a forbidden call from the watched calls (X13) and is refused by this audit
is the corpus case adversarial/fp8_gemm/X13_hides_scaled_mm_from_the_watched_calls.py."""

import textwrap

import pytest

from scoring.import_audit import audit_files

OPS = ("_scaled_mm", "mm", "topk", "softmax", "dot")
IMPORTS = ("flash_attn", "vllm")


def findings_for(tmp_path, source):
    path = tmp_path / "solution.py"
    path.write_text(textwrap.dedent(source))
    return [f.what for f in audit_files([path], IMPORTS, OPS)]


@pytest.mark.parametrize(
    "source,words",
    [
        ("import torch\ny = torch._scaled_mm", "'_scaled_mm'"),
        ("import torch.nn.functional as F\nF.softmax", "'softmax'"),
        ("def f(x):\n    return x.topk(3)", "'topk'"),
        ("import torch\ntorch.ops.aten.mm.default", "'mm'"),
        ("from torch import mm", "imports forbidden operator 'mm'"),
        ("import torch\ng = getattr(torch, 'topk')", "through getattr"),
        ("import flash_attn.flash_attn_interface as fa", "forbidden module 'flash_attn.flash_attn_interface'"),
        ("from vllm import _custom_ops", "forbidden module 'vllm._custom_ops'"),
        ("import importlib\nimportlib.import_module('flash_attn')", "dynamically"),
    ],
)
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
    tf32 = torch.backends.cuda.matmul.allow_tf32  # a backend setting, not the matmul operator
    """
    assert findings_for(tmp_path, source) == []
