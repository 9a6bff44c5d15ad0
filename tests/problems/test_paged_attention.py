"""Paged attention specifics on the CPU: the input contract (ragged lengths summing to B * L, edge
lengths, a shuffled block table), the byte formula, and that the shortcuts the problem guards against
really change the answer at the CPU shapes (so their 'incorrect' classification is earned)."""

import math

import torch

from scoring.problem import import_file, load_problem
from scoring.spec import find_problem

PROBLEM = load_problem(find_problem("paged_attention"))
P = PROBLEM.module


def _draw(shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    weights = P.make_weights(shape, gen, torch.device("cpu"))
    return weights, P.make_inputs(shape, weights, gen, torch.device("cpu"))


def test_lengths_are_ragged_sum_to_b_times_l_and_hold_the_edges():
    shape = dict(B=9, Hkv=1, G=2, D=64, L=40, edges=1)
    _weights, inputs = _draw(shape)
    lengths = inputs["seq_lens"].tolist()
    assert sum(lengths) == 9 * 40 and min(lengths) >= 1
    assert {1, 31, 32, 33} <= set(lengths)  # a length of 1 and one page boundary +- 1 (L // 16 = 2 pages)
    _weights, plain = _draw(dict(shape, edges=0), seed=3)
    assert len(set(plain["seq_lens"].tolist())) > 1


def test_block_table_addresses_distinct_shuffled_pages():
    shape = dict(B=6, Hkv=2, G=2, D=64, L=48, edges=0)
    weights, inputs = _draw(shape)
    pages_per_seq = [(n + 15) // 16 for n in inputs["seq_lens"].tolist()]
    used = torch.cat([row[:n] for row, n in zip(inputs["block_table"], pages_per_seq)])
    assert used.unique().numel() == used.numel()  # no page shared by two positions
    assert int(used.max()) < weights["k_cache"].shape[0]
    assert not torch.equal(used, torch.arange(used.numel(), dtype=used.dtype))  # not a contiguous layout


def test_bytes_count_the_addressed_tokens_once():
    shape = dict(B=32, Hkv=8, G=4, D=128, L=4096, edges=0)
    kv = 2 * 2 * 32 * 4096 * 8 * 128
    assert P.bytes_moved(shape) == kv + 2 * 2 * 32 * 32 * 128 + 4 * math.ceil(32 * 4096 / 16) + 4 * 32
    assert P.flops(shape) == 4 * 32 * 4096 * 32 * 128


def test_outputs_are_order_one_and_the_shortcuts_move_them():
    shape = dict(B=5, Hkv=2, G=4, D=64, L=48, edges=1)
    weights, inputs = _draw(shape)
    ref = P.reference(weights, inputs)
    rms = ref.pow(2).mean().sqrt().item()
    assert 0.2 < rms < 1.5, rms  # zeros and pass-through fail by a wide margin
    tol = PROBLEM.spec.tolerance
    from scoring.checking import compare

    B, H, D = inputs["q"].shape
    hkv, width = weights["k_cache"].shape[2], inputs["block_table"].shape[1]
    lens = inputs["seq_lens"]
    # What each shortcut computes, written as the reference on altered inputs (the known-wrong solutions
    # run the same alterations through the house kernel in test_every_problem_cpu.py).
    shortcuts = {
        "contiguous_pages": dict(inputs, block_table=torch.arange(B * width, dtype=torch.int32).reshape(B, width)
                                 % weights["k_cache"].shape[0]),
        "first_pages_only": dict(inputs, seq_lens=torch.minimum(lens, (lens + 31) // 32 * 16).to(torch.int32)),
        "interleaved_gqa": dict(inputs, q=inputs["q"].reshape(B, H // hkv, hkv, D).transpose(1, 2).reshape(B, H, D)),
    }
    for name, altered in shortcuts.items():
        out = P.reference(weights, altered)
        if name == "interleaved_gqa":
            out = out.reshape(B, hkv, H // hkv, D).transpose(1, 2).reshape(B, H, D)
        stats = compare(out.to(torch.bfloat16), ref, tol)
        assert not stats.passed and stats.normwise_err > 10 * tol.normwise, (name, stats.normwise_err)
    uniform = import_file(PROBLEM.spec.directory / "solutions" / "wrong" / "uniform_weights.py", "pa_uniform")
    stats = compare(uniform.run(weights, **inputs), ref, tol)
    assert not stats.passed and stats.normwise_err > 10 * tol.normwise, ("uniform_weights", stats.normwise_err)
