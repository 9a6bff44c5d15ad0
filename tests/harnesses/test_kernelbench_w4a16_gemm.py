"""The w4a16_gemm adapter scores a kernelbench.com 07_w4a16_gemm solution unchanged: a plain-torch model in
their interface passes our scorer on the CPU profile, the same model with the nibble order swapped fails it,
and the repacking of our GPTQ int32 words into their uint8 nibble pairs matches a direct computation."""

import json

import pytest
import torch

from problems.w4a16_gemm.problem import pack_int4
from tests.harnesses.kernelbench_scoring import load_adapter, score


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, "w4a16_gemm", "w4a16_gemm.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_a_swapped_nibble_order_is_caught(tmp_path):
    code, result = score(tmp_path, "w4a16_gemm", "w4a16_gemm_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")


def test_repacking_matches_their_packing_of_the_same_values():
    """Their reference's packing written out: byte k // 2 holds q[k] (even k) low and q[k + 1] high."""
    gen = torch.Generator().manual_seed(7)
    q = torch.randint(0, 16, (256, 48), generator=gen)
    q[:8, 0] = 15  # a word with its sign bit set: the int32 is negative
    expected = (q[0::2] | (q[1::2] << 4)).to(torch.uint8)
    qweight = pack_int4(q)
    assert int(qweight[0, 0]) < 0
    assert torch.equal(load_adapter("w4a16_gemm").their_w_q(qweight), expected)


def test_prepare_hands_their_model_our_scales_and_zeros_and_builds_one_model_per_m():
    class Recording(torch.nn.Module):
        def __init__(self, M, N, K, group_size=128):
            super().__init__()
            self.M = M
            self.register_buffer("w_q", torch.zeros(K // 2, N, dtype=torch.uint8))
            self.register_buffer("scales", torch.zeros(K // group_size, N, dtype=torch.bfloat16))
            self.register_buffer("zeros", torch.zeros(K // group_size, N, dtype=torch.bfloat16))

        def forward(self, x):
            return torch.full((x.shape[0], self.w_q.shape[1]), float(self.M), dtype=torch.bfloat16)

    adapter = load_adapter("w4a16_gemm", Recording)
    scales, zeros = torch.rand(2, 16).to(torch.bfloat16), torch.randint(0, 16, (2, 16)).to(torch.bfloat16)
    state = adapter.prepare(pack_int4(torch.randint(0, 16, (256, 16))), scales, zeros)
    assert float(adapter.run(state, torch.zeros(3, 256, dtype=torch.bfloat16))[0, 0]) == 3
    assert float(adapter.run(state, torch.zeros(5, 256, dtype=torch.bfloat16))[0, 0]) == 5
    first, second = state["models"][3], state["models"][5]
    assert first.scales is scales and first.zeros is zeros and first.w_q is second.w_q  # assigned, shared
