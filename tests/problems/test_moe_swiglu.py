"""moe_swiglu specifics: the routing families, the FLOP formula, and the house kernel on uneven segments."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from scoring.problem import load_problem
from scoring.spec import find_problem

REPO_ROOT = Path(__file__).resolve().parents[2]
PROBLEM = load_problem(find_problem("moe_swiglu"))
M = PROBLEM.module


def _counts(routing, T=512, topk=8, E=64, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return M.expert_counts(dict(T=T, topk=topk, E=E, routing=routing), gen, "cpu")


def test_flops_count_every_routed_row_for_gate_and_up():
    shape = dict(T=8192, topk=8, H=4096, I=1536, E=128, routing=0)
    assert PROBLEM.flops(shape) == 2 * (8192 * 8) * 4096 * (2 * 1536)


@pytest.mark.parametrize("routing", [M.BALANCED, M.SKEWED, M.HOT_EXPERT])
def test_every_routing_assigns_every_row_once(routing):
    counts = _counts(routing)
    assert counts.sum().item() == 512 * 8 and (counts >= 0).all()


def test_balanced_routing_is_even():
    counts = _counts(M.BALANCED)
    assert counts.max() - counts.min() <= 1


def test_skewed_routing_has_empty_and_heavy_experts():
    counts = _counts(M.SKEWED).float()
    assert (counts == 0).sum() >= 64 // M.EMPTY_EVERY
    assert counts.max() >= 3 * counts.mean()


def test_hot_expert_takes_every_token():
    counts = _counts(M.HOT_EXPERT, T=300, topk=6)
    assert counts.max().item() == 300  # one expert visited by all T tokens


def test_offsets_are_int32_cumulative():
    shape = dict(T=24, topk=4, H=64, I=64, E=8, routing=1)
    gen = torch.Generator().manual_seed(3)
    inputs = M.make_inputs(shape, M.make_weights(shape, gen, "cpu"), gen, "cpu")
    offsets = inputs["offsets"]
    assert offsets.dtype == torch.int32 and offsets[0] == 0 and offsets[-1] == 96
    assert (offsets[1:] >= offsets[:-1]).all()


_RAGGED_SCRIPT = """
import sys, torch
from scoring import interpreter_fixes
from scoring.problem import import_file, load_problem
from scoring.spec import find_problem
interpreter_fixes.apply()
problem = load_problem(find_problem("moe_swiglu"))
house = import_file(problem.spec.directory / "solutions" / "house.py", "moe_house_for_test")
shape = dict(T=10, topk=3, H=64, I=48, E=5, routing=0)
gen = torch.Generator().manual_seed(0)
weights = problem.module.make_weights(shape, gen, "cpu")
x = torch.randn((30, 64), generator=gen).to(torch.bfloat16)
offsets = torch.tensor([0, 0, 7, 7, 29, 30], dtype=torch.int32)  # empty, ragged, empty, long, one row
out = house.run(weights, x, offsets)
ref = problem.module.reference(weights, {"x": x, "offsets": offsets})
print(((out.float() - ref).norm() / ref.norm()).item())
"""


def test_house_kernel_matches_reference_with_empty_and_ragged_segments():
    # Triton picks the interpreter when a kernel is decorated, so this runs in a fresh process.
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO_ROOT))
    done = subprocess.run([sys.executable, "-c", _RAGGED_SCRIPT], env=env, cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.strip().splitlines()[-1]) < 5e-3
