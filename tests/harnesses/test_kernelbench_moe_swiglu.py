"""The moe_swiglu adapter scores a kernelbench.com 06_sonic_moe_swiglu solution unchanged: a plain-torch model
in their interface passes our scorer on the CPU profile, the same model with gate and up swapped fails it,
and their Model is built once per row count with our weights as its parameters."""

import json

import pytest
import torch

from tests.harnesses.kernelbench_scoring import load_adapter, score

PROBLEM = "moe_swiglu"


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, PROBLEM, "moe_swiglu.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_gate_and_up_swapped_is_caught(tmp_path):
    code, result = score(tmp_path, PROBLEM, "moe_swiglu_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")


def test_their_init_args_keep_the_row_count_as_t_total_times_k():
    adapter = load_adapter(PROBLEM)
    T_total, H, I, E, K = adapter.their_init_args(96, torch.zeros(8, 64, 32))  # noqa: E741
    assert (T_total * K, H, I, E) == (96, 64, 32, 8)


def test_their_model_holds_our_weights_and_is_built_once_per_row_count():
    built = []

    class Recording(torch.nn.Module):
        def __init__(self, T_total, H, I, E, K):  # noqa: E741
            super().__init__()
            built.append((T_total, H, I, E, K))
            self.W_gate = torch.nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))
            self.W_up = torch.nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))

        def forward(self, hidden_states, expert_offsets):
            assert expert_offsets.dtype == torch.int32 and hidden_states.dtype == torch.bfloat16
            return torch.full((hidden_states.shape[0], self.W_gate.shape[2]), float(len(built)), dtype=torch.bfloat16)

    adapter = load_adapter(PROBLEM, Recording)
    w_gate, w_up = torch.rand(4, 32, 16).to(torch.bfloat16), torch.rand(4, 32, 16).to(torch.bfloat16)
    state = adapter.prepare(w_gate, w_up)
    offsets = torch.tensor([0, 3, 3, 5, 6], dtype=torch.int32)
    for rows in (6, 6, 10):
        adapter.run(state, torch.zeros(rows, 32, dtype=torch.bfloat16), offsets)
    assert built == [(6, 32, 16, 4, 1), (10, 32, 16, 4, 1)]
    first, second = state["models"][6], state["models"][10]
    # assigned (as parameters over our storage), shared by every row count
    assert first.W_gate.data_ptr() == w_gate.data_ptr() and first.W_up.data_ptr() == w_up.data_ptr()
    assert second.W_gate.data_ptr() == w_gate.data_ptr()
