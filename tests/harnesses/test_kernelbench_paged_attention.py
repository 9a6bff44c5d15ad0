"""The paged_attention adapter scores a kernelbench.com 03_paged_attention solution unchanged: a plain-torch model
in their interface passes our scorer on the CPU profile, the same model attending over seq_len tokens instead of
seq_lens[b] fails it, our two pools become their packed [K | V] cache, and their Model always sees a table of
exactly ceil(seq_len / 16) columns and lengths <= seq_len, one live model per shape."""

import json

import pytest
import torch

from problems.paged_attention.problem import make_inputs, make_weights, reference
from tests.harnesses.kernelbench_scoring import MODELS, load_adapter, load_module, score

PROBLEM = "paged_attention"
SHAPE = {"B": 5, "Hkv": 2, "G": 3, "D": 64, "L": 37, "edges": 1}


def draw(seed: int = 3):
    gen = torch.Generator().manual_seed(seed)
    weights = make_weights(SHAPE, gen, "cpu")
    return weights, make_inputs(SHAPE, weights, gen, "cpu")


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, PROBLEM, "paged_attention.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_attending_over_seq_len_instead_of_seq_lens_is_caught(tmp_path):
    code, result = score(tmp_path, PROBLEM, "paged_attention_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")


def test_their_cache_packs_our_k_and_v_rows_side_by_side():
    weights, _ = draw()
    kv_cache = load_adapter(PROBLEM).their_kv_cache(weights["k_cache"], weights["v_cache"])
    D = SHAPE["D"]
    assert kv_cache.shape == (*weights["k_cache"].shape[:3], 2 * D) and kv_cache.is_contiguous()
    assert torch.equal(kv_cache[..., :D], weights["k_cache"]) and torch.equal(kv_cache[..., D:], weights["v_cache"])


def test_their_table_is_ours_widened_with_page_zero():
    adapter = load_adapter(PROBLEM)
    table = torch.randint(1, 50, (4, 3), dtype=torch.int32)
    assert adapter.their_block_table(table, 3) is table  # at the model's width: no operation
    wide = adapter.their_block_table(table, 5)
    assert wide.dtype == torch.int32 and wide.shape == (4, 5) and wide.is_contiguous()
    assert torch.equal(wide[:, :3], table) and not wide[:, 3:].any()


def test_the_plain_model_through_the_adapter_matches_our_reference():
    weights, inputs = draw()
    adapter = load_adapter(PROBLEM, load_module("their_paged_attention", MODELS / "paged_attention.py").Model)
    state = adapter.prepare(**weights)
    wider = dict(inputs, block_table=torch.cat([inputs["block_table"], inputs["block_table"][:, :2]], dim=1))
    adapter.run(state, **wider)  # a wider table first: the next call's is padded to its width
    out = adapter.run(state, **inputs)
    assert out.dtype == torch.bfloat16 and out.shape == inputs["q"].shape
    ref = reference(weights, inputs)
    assert float(((out.double() - ref).abs() - (1e-2 + 1.6e-2 * ref.abs())).max()) <= 0


def test_one_live_model_per_shape_rebuilt_only_for_a_wider_table():
    built, widths_seen = [], []

    class Recording(torch.nn.Module):
        def __init__(self, batch, num_heads, num_kv_heads, head_dim, seq_len, page_size):
            super().__init__()
            self.init_args = (batch, num_heads, num_kv_heads, head_dim, seq_len, page_size)
            self.register_buffer("_dummy", torch.zeros(1, dtype=torch.bfloat16), persistent=False)
            built.append(self)

        def forward(self, query, kv_cache, block_table, seq_lens):
            widths_seen.append(block_table.shape[1])
            return torch.zeros_like(query)

    adapter = load_adapter(PROBLEM, Recording)
    weights, inputs = draw()
    state = adapter.prepare(**weights)
    width = inputs["block_table"].shape[1]
    B, H = inputs["q"].shape[:2]
    for extra in (0, 2, 1, 2):
        table = torch.cat([inputs["block_table"], inputs["block_table"][:, :extra]], dim=1)
        adapter.run(state, **dict(inputs, block_table=table))
    assert [m.init_args for m in built] == [(B, H, SHAPE["Hkv"], SHAPE["D"], 16 * w, 16) for w in (width, width + 2)]
    assert list(state["models"]) == [(B, H)] and state["models"][(B, H)][1] is built[-1]
    assert widths_seen == [width, width + 2, width + 2, width + 2]  # the narrower calls padded
