"""The house kernel (problems/topk/solutions/house.py): its dispatch and merge tree on the CPU (Triton interpreter).

Correctness only, against the problem's own reference and check (problem.py: check, verify_call): every family
(NaN included), k = 1 up to k = 64, rows split over many chunks, partial tail chunks shorter than k, rows with
fewer than k finite entries, and merge trees of one and two levels (forced on small n with a small merge
tile). The dispatch rule itself is tested as a formula: no shape's chunk grows past its KP's base, every merge
program holds at most MERGE_TILE slots. Nothing here says anything about speed. The scorer's CPU run of the
house (every CPU-profile shape) is test_every_problem_cpu.py::test_house_kernel_passes_every_shape_on_cpu[topk];
the check's own semantics (ties, order, NaN) and chunk overrides are in test_topk.py.
"""

import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")

import triton  # noqa: E402  (after TRITON_INTERPRET)

from scoring.problem import import_file, load_problem  # noqa: E402

PROBLEM_DIR = Path(__file__).resolve().parents[2] / "problems" / "topk"
problem = load_problem(PROBLEM_DIR)
house = import_file(PROBLEM_DIR / "solutions" / "house.py", "topk_house_dispatch_test")


def _inputs(family, batch, n, k, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return problem.module.make_inputs({"batch": batch, "n": n, "k": k, "family": family}, {}, gen, "cpu")


def _assert_exact(out, inputs):
    module = problem.module
    stats = module.check(out, module.reference({}, inputs), {}, inputs, problem.spec.tolerance)
    assert stats.passed, stats.detail
    verified = module.verify_call(out, {}, inputs, None, problem.spec.tolerance)
    assert verified.passed, verified.detail


# (family, batch, n, k, merge_tile): merge_tile below the default forces partial-merge levels on small rows.
CASES = [
    (0, 3, 1000, 5, 4096),  # one chunk, no tree
    (0, 2, 5000, 1, 4096),  # k = 1 (argmax)
    (0, 2, 5000, 64, 1024),  # k = 64, one partial level
    (0, 2, 20000, 50, 512),  # two partial levels
    (1, 2, 5000, 64, 1024),  # integer ties, exact path in pass 1 and in the partial merge
    (1, 2, 20000, 33, 512),  # ties, two levels
    (1, 2, 4100, 64, 1024),  # tail chunk of 4 elements, fewer than k
    (2, 2, 9000, 33, 1024),  # clustered winners
    (2, 2, 3000, 16, 128),  # clustered, small k, tree over 64-slot chunks
    (3, 2, 4000, 8, 256),  # neg_inf: fewer than k finite entries per row, -inf ties selected
    (3, 2, 20000, 64, 512),  # neg_inf, two levels, about 20 finite entries per row
    (3, 2, 4106, 33, 1024),  # neg_inf, tail chunk of 10 elements
    (4, 3, 2500, 40, 256),  # NaN family: NaN above +inf, rows with more NaNs than k
    (4, 2, 5000, 1, 4096),  # NaN family at k = 1
    (0, 1, 64, 64, 4096),  # k == n
    (1, 2, 2048, 64, 1024),  # k = 64 with n an exact multiple of the chunk
]


@pytest.mark.parametrize("family,batch,n,k,merge_tile", CASES)
def test_house_matches_the_problem_check(family, batch, n, k, merge_tile):
    inputs = _inputs(family, batch, n, k)
    config = house.pick_config(batch, n, k, sms=132, merge_tile=merge_tile)
    if merge_tile < house.MERGE_TILE and n > 4096:
        assert config["levels"], "the case was meant to exercise the merge tree"
    _assert_exact(house.topk_indices(inputs["x"], k, config), inputs)


def test_two_level_tree_is_exercised():
    assert len(house.pick_config(2, 20000, 64, sms=132, merge_tile=512)["levels"]) == 2


@pytest.mark.parametrize("family", [0, 1, 2, 3])
def test_default_dispatch_on_the_cpu_profile_shapes(family):
    """run() as the scorer calls it, with the default rule (CPU: DEFAULT_SMS)."""
    inputs = _inputs(family, 2, 4500, 20, seed=3)
    _assert_exact(house.run({}, **inputs), inputs)


def test_nan_ranks_above_inf_across_chunks():
    x = torch.zeros((1, 3000))
    x[0, [10, 50, 70, 90, 2200, 2950]] = torch.tensor(
        [1.0, float("nan"), float("inf"), 3.0, float("nan"), float("inf")]
    )
    out = house.run({}, x=x, k=4)
    values = x.gather(1, out)[0]
    assert torch.isnan(values[:2]).all() and (values[2:] == float("inf")).all()


SCORED = [
    (256, 128256, 50),
    (1024, 32768, 64),
    (64, 262144, 8),
    (128, 151936, 16),
    (512, 65536, 1),
    (100, 256000, 64),
    (300, 50000, 33),
    (2048, 8192, 40),
    (32, 1048576, 64),
    (1000, 32000, 20),
]


@pytest.mark.parametrize("batch,n,k", SCORED + [(1, 64, 64), (1, 300000, 64), (256, 300000, 1), (3, 5000, 17)])
@pytest.mark.parametrize("sms", [132, 114, 8])
def test_dispatch_rule_is_a_formula_of_the_shape(batch, n, k, sms):
    cfg = house.pick_config(batch, n, k, sms=sms)
    kp = triton.next_power_of_2(k)
    assert cfg["KP"] == kp and cfg["CAP"] == 8 * kp
    assert max(1024, 16 * kp) <= cfg["CHUNK"] <= house.CHUNK_BY_KP[kp]  # never grown past the base
    assert cfg["CHUNK"] // cfg["num_warps"] <= 512  # at most 16 elements per thread
    groups, stride = triton.cdiv(n, cfg["CHUNK"]), cfg["CAP"]
    for groups_in, group, in_stride, groups_out in cfg["levels"]:
        assert (groups_in, in_stride) == (groups, stride)
        assert group * in_stride <= max(house.MERGE_TILE, 2 * in_stride)
        groups, stride = groups_out, cfg["out_stride"]
    assert (groups, stride) == (cfg["final_groups"], cfg["final_stride"])
    assert triton.next_power_of_2(groups) * stride <= house.MERGE_TILE


@pytest.mark.parametrize("batch,n,k", [(2, 5000, 64), (1, 300000, 64), (32, 1048576, 64), (256, 128256, 50)])
@pytest.mark.parametrize("chunk", [1024, 2048, 8192])
def test_a_given_chunk_gets_its_own_merge_tree(batch, n, k, chunk):
    """pick_config(chunk=...) (a sweep's or a test's chunk) derives the tree from that chunk, not the rule's."""
    cfg = house.pick_config(batch, n, k, chunk=chunk)
    assert cfg["CHUNK"] == chunk and cfg["num_warps"] == min(16, chunk // 512)
    groups, stride = triton.cdiv(n, chunk), cfg["CAP"]
    for groups_in, group, in_stride, groups_out in cfg["levels"]:
        assert (groups_in, in_stride) == (groups, stride)
        groups, stride = groups_out, cfg["out_stride"]
    assert (groups, stride) == (cfg["final_groups"], cfg["final_stride"])
    assert triton.next_power_of_2(groups) * stride <= house.MERGE_TILE


def test_scored_shapes_in_problem_toml_are_the_ones_checked_here():
    """SCORED above mirrors problem.toml, so a changed deck cannot leave the rule untested on it."""
    import tomllib

    deck = tomllib.loads((PROBLEM_DIR / "problem.toml").read_text())["shapes"]
    listed = {(s["batch"], s["n"], s["k"]) for part in ("visible", "held_out") for s in deck[part]}
    assert listed == set(SCORED)
