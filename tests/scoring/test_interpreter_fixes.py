"""The CPU profile's fixes to Triton's interpreter match what the GPU computes (torch as the yardstick)."""

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Looked up, not imported: importing Triton here, before tests/problems/test_softmax.py and test_topk.py
# set TRITON_INTERPRET=1, left their kernels compiled for a GPU when both ran in one pytest process.
if importlib.util.find_spec("triton") is None:
    pytest.skip("needs triton", allow_module_level=True)
REPO = Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent("""
    import torch, triton, triton.language as tl
    from scoring import interpreter_fixes

    @triton.jit
    def cast(x_ptr, y_ptr, N: tl.constexpr):
        r = tl.arange(0, N)
        tl.store(y_ptr + r, tl.load(x_ptr + r).to(tl.bfloat16))

    @triton.jit
    def dot(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
        r = tl.arange(0, N)
        a = tl.load(a_ptr + r[:, None] * N + r[None, :])
        b = tl.load(b_ptr + r[:, None] * N + r[None, :])
        tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))

    assert interpreter_fixes.apply()
    x = torch.randn(4096) * 3
    x[:3] = torch.tensor([float("nan"), float("inf"), -0.0])
    y = torch.empty(4096, dtype=torch.bfloat16)
    cast[(1,)](x, y, 4096)
    ref = x.to(torch.bfloat16)
    assert bool(((y == ref) | (y.isnan() & ref.isnan())).all()), "fp32->bf16 cast is not round-to-nearest-even"
    a, b = torch.randn(16, 16).to(torch.bfloat16), torch.randn(16, 16).to(torch.bfloat16)
    c = torch.empty(16, 16)
    dot[(1,)](a, b, c, 16)
    assert torch.allclose(c, a.float() @ b.float(), atol=1e-4), "bf16 dot is wrong"
    print("ok")
""")


def test_bf16_cast_rounds_and_bf16_dot_multiplies_values():
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
