"""The known-wrong bf16_cast kernel (problems/fp8_gemm/solutions/wrong/bf16_cast.py) for the X20
adversaries: fp8 operands widened to bf16, bf16 wgmma. Not a case."""

from pathlib import Path

from _correct import load_once

BF16_PATH = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm" / "solutions" / "wrong" / "bf16_cast.py"


def bf16_kernel():
    return load_once(BF16_PATH, "fp8_gemm_bf16_for_adversaries")
