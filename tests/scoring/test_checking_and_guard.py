"""The numeric check, the output contract, forbidden-operator interception and tamper detection."""

import time

import pytest
import torch

from scoring.checking import OutputContractError, check_output_contract, compare
from scoring.guard import ForbiddenOpError, ForbiddenOps, TamperSnapshot
from scoring.spec import Tolerance

TOL = Tolerance(rtol=1e-2, atol=1e-2, normwise=5e-3)


def test_exact_output_passes_and_zeros_constant_and_nan_fail():
    ref = torch.randn(64, 64, dtype=torch.float64)
    assert compare(ref.to(torch.bfloat16), ref, TOL).passed
    assert not compare(torch.zeros(64, 64), ref, TOL).passed
    assert not compare(torch.full((64, 64), float(ref.mean())), ref, TOL).passed
    with_nan = ref.clone()
    with_nan[3, 3] = float("nan")
    stats = compare(with_nan, ref, TOL)
    assert not stats.passed and stats.nonfinite_elements == 1


def test_one_bad_element_fails_even_when_the_norm_is_fine():
    ref = torch.randn(256, 256, dtype=torch.float64)
    out = ref.clone()
    out[0, 0] += 1.0
    stats = compare(out, ref, TOL)
    assert stats.normwise_err < TOL.normwise and not stats.passed and stats.bad_elements == 1


class LazyTensor(torch.Tensor):
    pass


@pytest.mark.parametrize(
    "out,words",
    [
        (torch.zeros(4, 4).as_subclass(LazyTensor), "plain torch.Tensor"),
        (torch.zeros(4, 5, dtype=torch.bfloat16), "shape"),
        (torch.zeros(4, 4), "dtype"),
        ("not a tensor", "expected a plain torch.Tensor"),
    ],
)
def test_output_contract_refuses_subclasses_and_wrong_declarations(out, words):
    with pytest.raises(OutputContractError, match=words):
        check_output_contract(out, (4, 4), torch.bfloat16, torch.device("cpu"))


@pytest.fixture
def refused_gemms():
    guard = ForbiddenOps(("mm", "matmul", "linear", "addmm", "bmm")).install()
    yield guard
    guard.uninstall()


def test_forbidden_op_is_refused_in_every_spelling_and_every_mode(refused_gemms):
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    spellings = [
        lambda: a @ b,
        lambda: torch.mm(a, b),
        lambda: a.matmul(b),
        lambda: getattr(torch, "m" + "m")(a, b),
        lambda: torch.ops.aten.mm.default(a, b),
        lambda: torch.nn.functional.linear(a, b),
        lambda: torch.mm(a, b, out=torch.empty(8, 8)),
        lambda: a.to_sparse() @ b,
    ]
    for spelling in spellings:
        with pytest.raises(ForbiddenOpError, match=r"aten::(mm|matmul|linear)"):
            spelling()
    with torch.inference_mode(), pytest.raises(ForbiddenOpError):
        torch.mm(a, b)
    assert (a + b).sum().isfinite()  # operators that are not forbidden keep their kernels


def test_a_refusal_the_solution_catches_is_still_recorded(refused_gemms):
    a = torch.randn(4, 4)
    try:
        torch.mm(a, a)
    except ForbiddenOpError:
        pass
    assert refused_gemms.take_attempts() == ["mm"]
    assert refused_gemms.take_attempts() == []


def test_the_grader_gets_the_real_operators_while_suspended_and_only_then(refused_gemms):
    a = torch.eye(3)
    with refused_gemms.suspended():
        assert torch.equal(torch.mm(a, a), a)
    with pytest.raises(ForbiddenOpError):
        torch.mm(a, a)
    refused_gemms.uninstall()
    assert torch.equal(torch.mm(a, a), a)


def test_a_forbidden_name_this_torch_lacks_is_reported_not_fatal():
    guard = ForbiddenOps(("mm", "no_such_operator_here")).install()
    try:
        assert guard.missing == ["no_such_operator_here"]
    finally:
        guard.uninstall()


def test_tamper_snapshot_sees_a_replaced_timer_and_a_flipped_flag():
    snapshot = TamperSnapshot()
    original = time.perf_counter
    previous_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        time.perf_counter = lambda: 0.0
        torch.backends.cuda.matmul.allow_tf32 = not previous_tf32
        changes = snapshot.changes()
    finally:
        time.perf_counter = original
        snapshot.restore_flags()
    assert "replaced time.perf_counter" in changes
    assert any(c.startswith("flag cuda.matmul.allow_tf32") for c in changes)
    assert torch.backends.cuda.matmul.allow_tf32 == previous_tf32
    assert snapshot.changes() == []


def test_input_mutation_check_treats_nan_as_unchanged_and_any_write_as_a_change():
    from scoring.shared_tensors import _same_values

    x = torch.tensor([1.0, float("nan"), float("-inf")])
    assert bool(_same_values(x, x.clone()))
    changed = x.clone()
    changed[0] = 2.0
    assert not bool(_same_values(changed, x))
    assert bool(_same_values(torch.arange(4), torch.arange(4))) and not bool(
        _same_values(torch.arange(4), torch.arange(1, 5))
    )
