"""What the KDA kernel tests share: inputs drawn the way the problem draws them, and the problem's own check.

Import it after setting TRITON_INTERPRET (the kernels under test are compiled for the interpreter then)."""

from pathlib import Path

import torch

from scoring.checking import compare
from scoring.problem import load_problem

PROBLEM_DIR = Path(__file__).resolve().parents[2] / "problems" / "kda"
problem = load_problem(PROBLEM_DIR)


def kda_inputs(shape: dict, seed: int, gate: float | None = None) -> dict:
    """The problem's inputs for `shape` on the CPU; `gate` replaces every per-step log-decay (e.g. G_MIN)."""
    gen = torch.Generator().manual_seed(seed)
    inputs = problem.module.make_inputs(shape, problem.module.make_weights(shape, gen, "cpu"), gen, "cpu")
    if gate is not None:
        inputs["g"] = torch.full_like(inputs["g"], gate)
    return inputs


def assert_matches_reference(out: torch.Tensor, inputs: dict) -> None:
    """Shape, dtype, and the problem's tolerance against its fp64 reference."""
    B, T, H, _ = inputs["q"].shape
    assert out.shape == (B, T, H, inputs["v"].shape[-1]) and out.dtype == torch.bfloat16
    stats = compare(out, problem.module.reference({}, inputs), problem.spec.tolerance)
    assert stats.passed, stats.detail
