"""The house top-k (problems/topk/solutions/house.py: a sampled row threshold) on the CPU (Triton interpreter).

Correctness only, against the problem's own reference, check and per-call verification (problem.py): every
family (NaN included), k = 1 up to 64 and its edges (2, 63, powers of two and one past them), k == n, rows
shorter than a sample tile or a filter chunk, rows with fewer than k finite entries (-inf ties selected),
tie mode (integer ties, -inf and NaN thresholds, the tie fill from the row), the overflow fallback (a buffer
forced small, and a sorted row the sample misrepresents), every variant's own dispatch, and the dispatch rule
as a formula on the scored shapes. The kernel's per-row threshold is also compared with the lab's CPU replay
(sim_threshold.py), so that replay's candidate counts describe the kernel. Nothing here says anything about
speed.
"""

import os
from pathlib import Path

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")

import triton  # noqa: E402,F401  (after TRITON_INTERPRET)

from scoring.problem import import_file, load_problem  # noqa: E402

PROBLEM_DIR = Path(__file__).resolve().parents[2] / "problems" / "topk"
problem = load_problem(PROBLEM_DIR)
candidate = import_file(PROBLEM_DIR / "solutions" / "house.py", "topk_house_threshold_test")
replay = import_file(PROBLEM_DIR / "lab" / "sim_threshold.py", "topk_sim_threshold_test")


def _inputs(family, batch, n, k, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return problem.module.make_inputs({"batch": batch, "n": n, "k": k, "family": family}, {}, gen, "cpu")


def _assert_exact(out, inputs):
    module = problem.module
    assert out.dtype == torch.int64 and out.shape == (inputs["x"].shape[0], inputs["k"])
    stats = module.check(out, module.reference({}, inputs), {}, inputs, problem.spec.tolerance)
    assert stats.passed, stats.detail
    verified = module.verify_call(out, {}, inputs, None, problem.spec.tolerance)
    assert verified.passed, verified.detail


def _run(inputs, **overrides):
    x, k = inputs["x"], inputs["k"]
    state = {}
    config = candidate.pick_config(x.shape[0], x.shape[1], k, 132, **overrides)
    out = candidate.topk_indices(x, k, config, state_out=state)
    return out, state


# (family, batch, n, k): the default variant's dispatch (F > 1 from n = a few thousand on).
CASES = [
    (0, 3, 1000, 5),  # one sample tile covers the row
    (0, 2, 5000, 1),  # argmax
    (0, 2, 6000, 2),
    (0, 2, 20000, 50),  # sampled (F = 8), tail chunk
    (0, 2, 9000, 63),
    (0, 2, 9000, 64),
    (0, 2, 9000, 17),  # one past a power of two
    (0, 2, 9000, 33),
    (1, 2, 5000, 64),  # integer ties: tie mode, tau = 7, the tie fill
    (1, 2, 20000, 33),
    (1, 2, 3000, 1),
    (2, 2, 9000, 33),  # clustered winners
    (2, 2, 30000, 8),
    (2, 2, 3000, 16),
    (3, 2, 4000, 8),  # fewer than k finite entries per row: -inf ties selected
    (3, 2, 20000, 64),  # ~20 finite per row: tau = -inf in tie mode
    (3, 2, 50000, 20),  # ~50 finite per row, sampled
    (3, 3, 4106, 33),
    (4, 3, 2500, 40),  # NaN above +inf, rows with more NaNs than k
    (4, 2, 5000, 1),
    (4, 3, 9000, 20),
    (0, 1, 64, 64),  # k == n
    (1, 1, 64, 64),  # k == n, all ties
    (3, 1, 64, 64),  # k == n, mostly -inf
    (0, 2, 100, 37),  # a row shorter than a sample tile and a chunk
    (0, 1, 1, 1),  # a single element
]


@pytest.mark.parametrize("family,batch,n,k", CASES)
def test_candidate_matches_the_problem_check(family, batch, n, k):
    inputs = _inputs(family, batch, n, k)
    _assert_exact(candidate.run({}, **inputs), inputs)


@pytest.mark.parametrize("variant", sorted(candidate.VARIANTS))
@pytest.mark.parametrize("family,k", [(0, 50), (1, 33), (2, 40), (3, 16), (4, 20)])
def test_every_variant_is_exact(variant, family, k):
    inputs = _inputs(family, 2, 12000, k, seed=family + 1)
    out = candidate.topk_indices(inputs["x"], k, variant=variant)
    _assert_exact(out, inputs)


@pytest.mark.parametrize("k", list(range(1, 65)))
def test_every_k_from_1_to_64(k):
    family = k % 5  # every family sees a spread of k
    inputs = _inputs(family, 2, 3000, k, seed=k)
    _assert_exact(candidate.run({}, **inputs), inputs)


@pytest.mark.parametrize("family,k", [(0, 50), (1, 64), (2, 33), (3, 8), (3, 64), (4, 20), (0, 6)])
def test_overflow_fallback_is_exact(family, k):
    """KP candidate slots and one maximum per 1024 elements (fewer maxima than k: tau = INT32_MIN, so every
    element is a candidate): every row overflows and takes the exact fallback, ties and -inf included."""
    inputs = _inputs(family, 2, 5000, k, seed=11)
    kp = triton.next_power_of_2(k)
    out, state = _run(inputs, BUF=2 * kp, F=1, SEG=1024)
    assert bool((state["info"][:, 2] > kp).all()), "the case was meant to overflow every row"
    _assert_exact(out, inputs)


@pytest.mark.parametrize("k", [1, 64])
def test_sorted_rows_overflow_the_default_buffer_and_stay_exact(k):
    """Ascending rows: the sample's last tile sets tau, and every element after it passes (> GT_SLOTS)."""
    n = 20000
    x = torch.arange(2 * n, dtype=torch.float32).view(2, n).contiguous()
    inputs = {"x": x, "k": k}
    out, state = _run(inputs)
    assert bool((state["info"][:, 2] > state["config"]["GT_SLOTS"]).all())
    _assert_exact(out, inputs)


def test_nan_threshold_tie_fill():
    """More NaN groups than k in the sample: tau is the NaN key in tie mode; the fill takes NaNs from the row."""
    gen = torch.Generator().manual_seed(5)
    x = torch.randn((2, 6000), generator=gen)
    x[0, ::50] = float("nan")  # 120 NaNs, spread
    x[1, -30:] = float("nan")  # 30 NaNs at the end, fewer than k: tau stays finite
    inputs = {"x": x, "k": 40}
    out, state = _run(inputs, F=1, SEG=1)
    assert int(state["info"][0, 0]) == 2**31 - 1 and int(state["info"][0, 1]) == 1
    _assert_exact(out, inputs)


def test_tie_fill_with_sparse_ties_scans_the_row():
    """Tie mode whose ties sit at the end of the row: the fill scans tiles until it has enough."""
    n, k = 8000, 20
    x = torch.zeros((1, n))
    x[0, -25:] = 5.0  # 25 equal maxima at the end: tau = 5.0 (tie mode), nothing above it
    inputs = {"x": x, "k": k}
    out, state = _run(inputs, F=1, SEG=1)
    assert int(state["info"][0, 1]) == 1 and int(state["info"][0, 2]) == 0
    _assert_exact(out, inputs)


def test_negative_zero_and_infinities():
    x = torch.tensor([[0.0, -0.0, float("inf"), -float("inf"), 1.0, -1.0, float("inf"), 0.0] * 16])
    for k in (1, 3, 8, 64, 128):
        inputs = {"x": x.contiguous(), "k": k}
        _assert_exact(candidate.run({}, **inputs), inputs)


@pytest.mark.parametrize("family,k,n", [(0, 50, 40000), (1, 33, 20000), (3, 20, 32000), (2, 8, 30000)])
def test_kernel_threshold_matches_the_cpu_replay(family, k, n):
    """tau, the tie mode and the candidate count per row equal sim_threshold.py's replay of kernels 1-3."""
    inputs = _inputs(family, 3, n, k, seed=2)
    out, state = _run(inputs)
    _assert_exact(out, inputs)
    expected = replay.replay(inputs["x"], k, state["config"])
    info = state["info"].to(torch.int64)
    assert torch.equal(info[:, 0], expected["tau"])
    assert torch.equal(info[:, 1].bool(), expected["tie_mode"])
    assert torch.equal(info[:, 2], expected["candidates"])


SCORED = [(s.name, dict(s.params)) for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out]


@pytest.mark.parametrize("variant", sorted(candidate.VARIANTS))
@pytest.mark.parametrize("sms", [78, 114, 132])
def test_dispatch_rule_on_the_scored_shapes(variant, sms):
    """The docstring's formula, checked as invariants: the buffer, the sample and the tiles it implies."""
    const = candidate.VARIANTS[variant]
    for name, p in SCORED:
        batch, n, k = p["batch"], p["n"], p["k"]
        cfg = candidate.pick_config(batch, n, k, sms, variant)
        kp = triton.next_power_of_2(k)
        assert cfg["BUF"] == max(const["BUF_MIN"], const["BUF_PER_KP"] * kp) and cfg["GT_SLOTS"] == cfg["BUF"] - kp
        f = cfg["F"]
        assert f & (f - 1) == 0 and 1 <= f <= const["F_MAX"], name
        assert const["SAFETY"] * k * f <= cfg["GT_SLOTS"] or f == 1, name
        assert (
            2 * f > const["F_MAX"]
            or const["SAFETY"] * k * 2 * f > cfg["GT_SLOTS"]
            or n / (2 * f) < (const["MIN_GROUPS_PER_KP"] * kp)
        ), f"{name}: F could have doubled"
        assert cfg["maxima_per_row"] == cfg["tiles_per_row"] * cfg["TILE_S"] // cfg["SEG"] <= candidate.C_MAX, name
        assert cfg["maxima_per_row"] >= k, f"{name}: fewer sample maxima than k"
        assert cfg["CHUNK"] >= 1024 and cfg["filter_warps"] * 32 * const["ELEMS_PER_THREAD"] == cfg["CHUNK"], name
        assert cfg["final_warps"] <= 16 and cfg["threshold_warps"] <= 16


SHORT_VARIANTS = sorted(v for v in candidate.VARIANTS if "SHORT_N_MAX" in candidate.VARIANTS[v])


def _run_short(inputs, variant="buf16_short", **overrides):
    """The fused short-row kernel, forced (SHORT=True) whatever the batch."""
    x, k = inputs["x"], inputs["k"]
    config = candidate.pick_config(x.shape[0], x.shape[1], k, 132, variant, SHORT=True, **overrides)
    assert config["short"]
    return candidate.topk_indices(x, k, config)


@pytest.mark.parametrize("family,batch,n,k", CASES + [(2, 2, 8192, 40), (0, 2, 16384, 64), (4, 2, 8192, 64)])
def test_short_path_matches_the_problem_check(family, batch, n, k):
    """Every case of the default dispatch again through the fused short-row kernel (every family, NaN,
    fewer than k finite entries, integer ties, k == n, rows shorter than a group tile, a single element)."""
    inputs = _inputs(family, batch, n, k)
    _assert_exact(_run_short(inputs), inputs)


@pytest.mark.parametrize("k", list(range(1, 65)))
def test_short_path_every_k_from_1_to_64(k):
    family = (k + 2) % 5
    inputs = _inputs(family, 2, 3000 + 37 * k, k, seed=100 + k)  # n not a multiple of SEG or G
    _assert_exact(_run_short(inputs), inputs)


@pytest.mark.parametrize("variant", SHORT_VARIANTS)
@pytest.mark.parametrize("family,n,k", [(0, 9000, 40), (1, 32768, 64), (2, 8192, 40), (3, 32000, 20), (4, 12000, 33)])
def test_short_variants_take_their_own_dispatch_and_stay_exact(variant, family, n, k):
    """Few SMs, so a batch of 3 reaches SHORT_ROWS_PER_SM SMs: the variant's own rule picks the path."""
    inputs = _inputs(family, 3, n, k, seed=family + 20)
    config = candidate.pick_config(3, n, k, 1, variant)
    assert config["short"] == (n <= candidate.VARIANTS[variant]["SHORT_N_MAX"])
    _assert_exact(candidate.topk_indices(inputs["x"], k, config), inputs)


@pytest.mark.parametrize("k", [1, 5, 40, 64])
def test_short_path_on_sorted_and_adversarial_rows(k):
    """Ascending and descending rows (every chosen group full of winners), the winners in one group
    stride, all equal, all -inf but one, and every value NaN: exact, with no overflow path to fall to."""
    n = 8192
    asc = torch.arange(n, dtype=torch.float32)
    strided = torch.zeros(n)
    strided[5::1024] = torch.arange(1.0, 9.0)  # all 8 winners in group 5
    one = torch.full((n,), float("-inf"))
    one[77] = 1.0
    x = torch.stack([asc, asc.flip(0), strided, torch.full((n,), 3.0), one, torch.full((n,), float("nan"))])
    inputs = {"x": x.contiguous(), "k": k}
    _assert_exact(_run_short(inputs), inputs)


def test_short_path_negative_zero_and_infinities():
    x = torch.tensor([[0.0, -0.0, float("inf"), -float("inf"), 1.0, -1.0, float("inf"), 0.0] * 16])
    for k in (1, 3, 8, 64):
        inputs = {"x": x.contiguous(), "k": k}
        _assert_exact(_run_short(inputs), inputs)


@pytest.mark.parametrize("variant", sorted(candidate.VARIANTS))
@pytest.mark.parametrize("sms", [78, 114, 132])
def test_short_dispatch_rule_on_the_scored_shapes(variant, sms):
    """The short-row rule as a formula of (batch, n, k, SMs): groups cover the row, SEG minimal, and the
    path taken exactly when the variant's bounds allow; never for the variants without a short path."""
    const = candidate.VARIANTS[variant]
    for name, p in SCORED:
        batch, n, k = p["batch"], p["n"], p["k"]
        cfg = candidate.pick_config(batch, n, k, sms, variant)
        seg, g = cfg["SHORT_SEG"], cfg["SHORT_G"]
        assert seg & (seg - 1) == 0 and g & (g - 1) == 0 and g * seg >= n, name
        assert seg == 8 or triton.cdiv(n, seg // 2) > const.get("SHORT_G_MAX", 1024), name
        expected = (
            n <= const.get("SHORT_N_MAX", 0)
            and batch >= const.get("SHORT_ROWS_PER_SM", 0) * sms
            and cfg["KP"] * seg <= const.get("SHORT_M_MAX", 0)
        )
        assert cfg["short"] == expected, name
    if variant == "buf16_short":
        taken = [name for name, p in SCORED if candidate.pick_config(p["batch"], p["n"], p["k"], 132, variant)["short"]]
        assert taken == ["clustered_8k"]


def test_interface_matches_the_house():
    house = import_file(PROBLEM_DIR / "solutions" / "house.py", "topk_house_interface_test")
    for name in ("run", "topk_indices", "pick_config", "sm_count"):
        assert callable(getattr(candidate, name)), name
        assert callable(getattr(house, name)), name
    assert isinstance(candidate.LABEL, str) and candidate.DEFAULT_VARIANT in candidate.VARIANTS
