"""The moe_swiglu adapter scores a kernelbench.com 06_sonic_moe_swiglu solution unchanged: a plain-torch model
in their interface passes our scorer on the CPU profile, the same model with gate and up swapped fails it,
and their Model is built once per row count with our weights as its parameters."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from harnesses.kernelbench import layout

REPO = Path(__file__).resolve().parents[2]
MODELS = Path(__file__).resolve().parent / "kernelbench_models"
PROBLEM = "moe_swiglu"
FAST = ["device=cpu", "lines=none", "audits=false", "shapes=visible", "check_seeds=2", "min_calls=2",
        "max_calls=2", "warmup_s=0", "progress=false"]


def score(tmp_path, model_file: str) -> tuple[int, dict]:
    """Score MODELS/model_file through the adapter; returns the exit code and the result JSON."""
    solution = layout.write_solution_folder(tmp_path / "run", PROBLEM, (MODELS / model_file).read_bytes(),
                                            {"harness": "test", "model": model_file})
    done = subprocess.run([sys.executable, "-m", "scoring.run", f"problem={PROBLEM}", f"solution={solution}",
                           f"out={tmp_path / 'results'}", *FAST], check=False, cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    paths = [line.split("result: ", 1)[1].strip() for line in done.stdout.splitlines() if line.startswith("result: ")]
    assert paths, f"no result line\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}"
    return done.returncode, json.loads(Path(paths[-1]).read_text())


def load_adapter(model_class=None):
    """The adapter module, with agent_solution a stub holding model_class (restored afterwards)."""
    stub = type(sys)(layout.AGENT_MODULE)
    stub.Model = model_class
    saved = sys.modules.get(layout.AGENT_MODULE)
    sys.modules[layout.AGENT_MODULE] = stub
    try:
        spec = importlib.util.spec_from_file_location(f"adapter_{PROBLEM}", layout.adapter_path(PROBLEM))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        if saved is None:
            del sys.modules[layout.AGENT_MODULE]
        else:
            sys.modules[layout.AGENT_MODULE] = saved


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, "moe_swiglu.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_gate_and_up_swapped_is_caught(tmp_path):
    code, result = score(tmp_path, "moe_swiglu_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")


def test_their_init_args_keep_the_row_count_as_t_total_times_k():
    adapter = load_adapter()
    T_total, H, I, E, K = adapter.their_init_args(96, torch.zeros(8, 64, 32))
    assert (T_total * K, H, I, E) == (96, 64, 32, 8)


def test_their_model_holds_our_weights_and_is_built_once_per_row_count():
    built = []

    class Recording(torch.nn.Module):
        def __init__(self, T_total, H, I, E, K):
            super().__init__()
            built.append((T_total, H, I, E, K))
            self.W_gate = torch.nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))
            self.W_up = torch.nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))

        def forward(self, hidden_states, expert_offsets):
            assert expert_offsets.dtype == torch.int32 and hidden_states.dtype == torch.bfloat16
            return torch.full((hidden_states.shape[0], self.W_gate.shape[2]), float(len(built)), dtype=torch.bfloat16)

    adapter = load_adapter(Recording)
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
