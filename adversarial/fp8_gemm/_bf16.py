"""The known-wrong bf16_cast kernel (problems/fp8_gemm/solutions/wrong/bf16_cast.py), loaded once for the
X20 adversaries: fp8 operands widened to bf16, bf16 wgmma. Not a case."""

import importlib.util
from pathlib import Path

BF16_PATH = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm" / "solutions" / "wrong" / "bf16_cast.py"
_loaded = []


def bf16_kernel():
    if not _loaded:
        spec = importlib.util.spec_from_file_location("fp8_gemm_bf16_for_adversaries", BF16_PATH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded.append(module)
    return _loaded[0]
