"""KDA's reference is the chunked evaluation of the recurrence (problems/kda/problem.py: chunked_kda); the
step-by-step recurrence is the definition. They must agree to fp64 rounding on every path the chunked form
takes: partial last chunks, a single token, no decay, the strongest decay the inputs allow, any chunk size."""

import pytest
import torch

from problems.kda.problem import G_MIN, chunked_kda, make_inputs, make_weights, recurrent_kda, reference

SHAPES = [dict(B=1, T=1, H=1, K=8, V=4), dict(B=2, T=63, H=3, K=16, V=8), dict(B=1, T=64, H=2, K=16, V=16),
          dict(B=2, T=130, H=2, K=32, V=8), dict(B=1, T=300, H=1, K=64, V=64)]


def _inputs(shape, seed, gate=None):
    gen = torch.Generator().manual_seed(seed)
    inputs = make_inputs(shape, make_weights(shape, gen, "cpu"), gen, "cpu")
    if gate is not None:
        inputs["g"] = torch.full_like(inputs["g"], gate)
    return inputs


def _both(inputs, **chunking):
    args = [inputs[name] for name in ("q", "k", "v", "g", "beta")]
    return recurrent_kda(*args, inputs["scale"]), chunked_kda(*args, inputs["scale"], **chunking)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "b{B}_t{T}_h{H}_k{K}_v{V}".format(**s))
@pytest.mark.parametrize("gate", [None, 0.0, G_MIN], ids=["drawn", "no_decay", "strongest_decay"])
def test_the_chunked_form_equals_the_recurrence(shape, gate):
    (o_step, state_step), (o_chunk, state_chunk) = _both(_inputs(shape, seed=shape["T"], gate=gate))
    assert o_chunk.dtype == torch.float64 and o_chunk.shape == o_step.shape
    assert torch.isfinite(o_chunk).all()
    scale = o_step.abs().max().clamp(min=1.0)
    assert (o_chunk - o_step).abs().max() <= 1e-12 * scale
    assert (state_chunk - state_step).abs().max() <= 1e-12 * state_step.abs().max().clamp(min=1.0)


@pytest.mark.parametrize("chunk", [1, 7, 64, 512])
def test_any_chunk_length_gives_the_same_answer(chunk):
    (o_step, _), (o_chunk, _) = _both(_inputs(SHAPES[3], seed=1), chunk=chunk)
    assert (o_chunk - o_step).abs().max() <= 1e-12 * o_step.abs().max()


def test_the_comparison_can_fail():
    """The agreement above is not a tautology: the same chunked form on other keys (halved, so the delta
    rule's recall no longer cancels what was written) is far from the recurrence on the real ones."""
    inputs = _inputs(SHAPES[3], seed=2)
    (o_step, _), _ = _both(inputs)
    no_recall = dict(inputs, k=inputs["k"] * 0.5)  # the recall term k^T S no longer cancels what was written
    o_other, _ = chunked_kda(*(no_recall[name] for name in ("q", "k", "v", "g", "beta")), inputs["scale"])
    assert (o_other - o_step).abs().max() > 1e-2


def test_reference_is_the_chunked_form():
    inputs = _inputs(SHAPES[1], seed=3)
    (o_step, _), _ = _both(inputs)
    assert (reference({}, inputs) - o_step).abs().max() <= 1e-12 * o_step.abs().max()


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [dict(B=1, T=4096, H=16, K=128, V=128), dict(B=8, T=700, H=32, K=128, V=128)],
                         ids=["b1_t4k_h16", "b8_t700_h32"])
def test_the_chunked_form_equals_the_recurrence_on_the_gpu(shape):
    """On the GPU's fp64 (cuBLAS products, the batched triangular solve) at the problem's head dims, with a
    partial last chunk in the second shape and the largest batch x heads of the deck (256 pairs)."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    inputs = make_inputs(shape, make_weights(shape, gen, "cuda"), gen, "cuda")
    (o_step, state_step), (o_chunk, state_chunk) = _both(inputs)
    assert (o_chunk - o_step).abs().max() <= 1e-10 * o_step.abs().max()
    assert (state_chunk - state_step).abs().max() <= 1e-10 * state_step.abs().max()
