"""Every problem's per-call verification (scoring/problem.py: VERIFY_METHOD, verify_call), on its CPU shapes.

Correct outputs pass (the reference in the output dtype over many draws, noise within the tolerance, topk's
other tie-breaks); outputs with 1% of their rows (the problem's unit of work) zeroed, NaN or stale (another
call's output) fail; and no forbidden operator is reached, on the passing and on the failing paths.
"""

import functools
import math

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from scoring.checking import compare
from scoring.problem import load_problem
from scoring.spec import discover_problems, load_spec

NAMES = ("fp8_gemm", "w4a16_gemm", "moe_swiglu", "paged_attention", "softmax", "topk", "kda")
DIRECTORIES = discover_problems()
PROPERTY_SEED = 7  # which property shapes of the CPU profile are drawn
INPUT_DRAWS = 3
VERIFY_SEEDS = 4  # per-call generators, as the grader's secret would seed them
WRONG_SHARE = 0.01


@functools.cache
def problem(name):
    return load_problem(DIRECTORIES[name])


def cpu_shapes(name):
    return [dict(shape.params) for shape in problem(name).spec.shapes_for("cpu").select("all", PROPERTY_SEED)]


def draw(name, params, seed, weights=None):
    module = problem(name).module
    gen = torch.Generator().manual_seed(seed)
    weights = module.make_weights(params, gen, "cpu") if weights is None else weights
    return weights, module.make_inputs(params, weights, gen, "cpu")


def correct_output(name, params, weights, inputs):
    if name == "topk":  # the reference holds values; the output is their indices
        return torch.topk(inputs["x"], params["k"], dim=1).indices
    module = problem(name).module
    return module.reference(weights, inputs).to(module.output_spec(params)[1])


def full_check(name, out, weights, inputs):
    """The grader's full check of a call (the problem's own check, or the element-wise compare)."""
    module, tolerance = problem(name).module, problem(name).spec.tolerance
    ref = module.reference(weights, inputs)
    custom = getattr(module, "check", None)
    return custom(out, ref, weights, inputs, tolerance) if custom else compare(out, ref, tolerance)


def verify(name, out, weights, inputs, seed):
    return problem(name).module.verify_call(out, weights, inputs, torch.Generator().manual_seed(seed),
                                            problem(name).spec.tolerance)


def units(name, out):
    """A view of out whose leading dims index the problem's unit of work, and how many of them lead."""
    if name == "paged_attention":
        return out, 2  # (sequence, head) rows
    if name == "kda":
        return out.transpose(1, 2), 2  # (batch, head) pairs, all their tokens
    return out, 1  # rows


def corrupt(name, out, how, other, seed):
    """out with ceil(1%) of its units zeroed, poisoned (NaN; -1 for integer indices) or taken from `other`."""
    out = out.clone()
    view, lead = units(name, out)
    count = math.prod(view.shape[:lead])
    chosen = torch.randperm(count, generator=torch.Generator().manual_seed(seed))[:math.ceil(WRONG_SHARE * count)]
    where = torch.unravel_index(chosen, view.shape[:lead])
    if how == "stale":
        view[where] = units(name, other)[0][where]
    else:
        view[where] = 0 if how == "zeroed" else (-1 if name == "topk" else math.nan)
    return out


def cases(name):
    for params in cpu_shapes(name):
        for draw_seed in range(INPUT_DRAWS):
            weights, inputs = draw(name, params, draw_seed)
            yield params, draw_seed, weights, inputs


@pytest.mark.parametrize("name", NAMES)
def test_verify_method_is_declared(name):
    method = getattr(problem(name).module, "VERIFY_METHOD", None)
    assert isinstance(method, str) and method.strip()


@pytest.mark.parametrize("name", NAMES)
def test_the_reference_output_passes(name):
    for params, draw_seed, weights, inputs in cases(name):
        out = correct_output(name, params, weights, inputs)
        for seed in range(VERIFY_SEEDS):
            stats = verify(name, out, weights, inputs, seed)
            assert stats.passed, (params, draw_seed, seed, stats)


def within_tolerance(ref, tolerance, gen):
    """ref plus noise of at most half the element-wise bound and half the normwise bound."""
    ref = ref.double()
    bound = tolerance.atol + tolerance.rtol * ref.abs()
    noise = (torch.rand(ref.shape, generator=gen, dtype=torch.float64) * 2 - 1) * bound
    scale = min(0.5, 0.5 * tolerance.normwise * float(torch.linalg.vector_norm(ref) / torch.linalg.vector_norm(noise)))
    return ref + scale * noise


@pytest.mark.parametrize("name", [n for n in NAMES if n != "topk"])
def test_noise_within_the_tolerance_passes(name):
    module, tolerance = problem(name).module, problem(name).spec.tolerance
    for params, draw_seed, weights, inputs in cases(name):
        ref = module.reference(weights, inputs)
        noisy = within_tolerance(ref, tolerance, torch.Generator().manual_seed(draw_seed))
        out = noisy.to(module.output_spec(params)[1])
        assert compare(out, ref, tolerance).passed, "the noise must be within the full check's tolerance"
        for seed in range(VERIFY_SEEDS):
            stats = verify(name, out, weights, inputs, seed)
            assert stats.passed, (params, draw_seed, seed, stats)


def test_topk_other_tie_breaks_and_nan_rows_pass():
    nan_rows = [{"batch": 4, "n": 300, "k": 10, "family": 4}, {"batch": 3, "n": 100, "k": 64, "family": 4}]
    shapes = cpu_shapes("topk") + nan_rows  # family 4 (NaN) is not among the CPU shapes
    for params in shapes:
        weights, inputs = draw("topk", params, 0)
        x = inputs["x"]
        permutation = torch.randperm(x.shape[1], generator=torch.Generator().manual_seed(1))
        out = permutation[torch.topk(x[:, permutation], params["k"], dim=1).indices]  # ties broken elsewhere
        assert full_check("topk", out, weights, inputs).passed
        assert verify("topk", out, weights, inputs, 0).passed, params


@pytest.mark.parametrize("how", ["zeroed", "nan", "stale"])
@pytest.mark.parametrize("name", NAMES)
def test_one_percent_of_wrong_rows_fails(name, how):
    for params, draw_seed, weights, inputs in cases(name):
        out = correct_output(name, params, weights, inputs)
        _, other_inputs = draw(name, params, 100 + draw_seed, weights)
        other = correct_output(name, params, weights, other_inputs)
        wrong = corrupt(name, out, how, other, seed=draw_seed)
        assert not full_check(name, wrong, weights, inputs).passed, "the corruption must be wrong"
        for seed in range(VERIFY_SEEDS):
            stats = verify(name, wrong, weights, inputs, seed)
            assert not stats.passed, (params, draw_seed, how, seed)
            if how == "nan" and name != "topk":
                assert "NaN/Inf" in stats.detail


class RefuseOps(TorchDispatchMode):
    """Raise on any aten operator named in `names`, as the grader refuses the problem's forbidden_ops."""

    def __init__(self, names):
        super().__init__()
        self.names = frozenset(names)
        self.seen = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        self.seen.add(name)
        if name in self.names:
            raise AssertionError(f"aten::{name} is forbidden in this problem")
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("name", NAMES)
def test_verification_reaches_no_forbidden_operator(name):
    forbidden = load_spec(DIRECTORIES[name]).forbidden_ops
    for params in cpu_shapes(name):
        weights, inputs = draw(name, params, 0)
        out = correct_output(name, params, weights, inputs)
        _, other_inputs = draw(name, params, 100, weights)
        stale = corrupt(name, out, "stale", correct_output(name, params, weights, other_inputs), seed=0)
        poisoned = corrupt(name, out, "nan", out, seed=0)
        for candidate, passes in ((out, True), (stale, False), (poisoned, False)):
            with RefuseOps(forbidden) as mode:
                stats = verify(name, candidate, weights, inputs, 0)
            assert stats.passed == passes, (params, stats)
            assert mode.seen, "the mode saw no operator: it was not in effect"


@pytest.mark.parametrize("op, call", [
    ("mm", lambda a: a @ a),
    ("sum", lambda a: (a * a).sum(1)),
    ("sort", lambda a: a.argsort(dim=1)),
    ("_softmax", lambda a: torch.softmax(a, dim=1)),
])
def test_the_refusing_mode_sees_every_spelling(op, call):
    with pytest.raises(AssertionError, match=op), RefuseOps({op}):
        call(torch.ones(3, 3))
