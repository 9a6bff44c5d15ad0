"""The fp8_gemm adapter scores a kernelbench.com 01_fp8_gemm solution unchanged: a plain-torch model in
their interface passes our scorer on the CPU profile, the same model with a dropped K tail fails it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from harnesses.kernelbench import layout

REPO = Path(__file__).resolve().parents[2]
MODELS = Path(__file__).resolve().parent / "kernelbench_models"
FAST = ["device=cpu", "lines=none", "audits=false", "shapes=visible", "check_seeds=2", "min_calls=2",
        "max_calls=2", "warmup_s=0", "progress=false"]


def score(tmp_path, model_file: str, problem: str) -> tuple[int, dict]:
    """Score MODELS/model_file through the adapter; returns the exit code and the result JSON."""
    folder = tmp_path / "run"
    solution = layout.write_solution_folder(folder, problem, (MODELS / model_file).read_bytes(),
                                            {"harness": "test", "model": model_file})
    done = subprocess.run([sys.executable, "-m", "scoring.run", f"problem={problem}", f"solution={solution}",
                           f"out={tmp_path / 'results'}", *FAST], check=False, cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    paths = [line.split("result: ", 1)[1].strip() for line in done.stdout.splitlines() if line.startswith("result: ")]
    assert paths, f"no result line\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}"
    return done.returncode, json.loads(Path(paths[-1]).read_text())


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, "fp8_gemm.py", "fp8_gemm")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_a_dropped_k_tail_is_caught(tmp_path):
    code, result = score(tmp_path, "fp8_gemm_wrong.py", "fp8_gemm")
    assert (code, result["status"]) == (1, "incorrect")


def test_glue_puts_a_scale_times_b_scale_into_every_channel():
    """run() on a model that records the weight_scale it sees: a_scale * b_scale in all N channels, every call,
    in the buffer object the model holds (agents read it by address)."""
    seen = []

    class Recording(torch.nn.Module):
        def __init__(self, M, N, K):
            super().__init__()
            self.register_buffer("weight", torch.zeros(N, K, dtype=torch.float8_e4m3fn))
            self.register_buffer("weight_scale", torch.zeros(N))

        def forward(self, x):
            seen.append((self.weight_scale.clone(), self.weight_scale.data_ptr(), torch.is_grad_enabled()))
            return torch.zeros(x.shape[0], self.weight.shape[0], dtype=torch.bfloat16)

    adapter = load_adapter_with_stub("fp8_gemm", Recording)
    b = torch.ones(3, 16).to(torch.float8_e4m3fn)
    state = adapter.prepare(b, torch.tensor(0.25))
    a = torch.ones(2, 16).to(torch.float8_e4m3fn)
    adapter.run(state, a, torch.tensor(2.0))
    adapter.run(state, a, torch.tensor(8.0))
    assert [s.tolist() for s, _, _ in seen] == [[0.5] * 3, [2.0] * 3]
    assert seen[0][1] == seen[1][1] and not any(grad for _, _, grad in seen)
    assert list(state["models"]) == [2] and state["models"][2][0].weight is b  # assigned on meta, not copied


def load_adapter(problem: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"adapter_{problem}", layout.adapter_path(problem))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WithWorkBuffer(torch.nn.Module):
    """Like an agent's model that keeps a zero-filled workspace as a non-persistent buffer."""

    def __init__(self, M, N, K):
        super().__init__()
        self.register_buffer("weight", torch.zeros(N, K, dtype=torch.float8_e4m3fn))
        self.register_buffer("weight_scale", torch.zeros(N))
        self.register_buffer("workspace", torch.zeros(M, K), persistent=False)


class NeedsRealData(WithWorkBuffer):
    """A constructor that reads a value (impossible on the meta device)."""

    def __init__(self, M, N, K):
        super().__init__(M, N, K)
        self.first = float(self.workspace[0, 0])


@pytest.mark.parametrize("model_class", [WithWorkBuffer, NeedsRealData])
def test_models_that_meta_cannot_build_are_built_as_their_check_does(model_class):
    adapter = load_adapter_with_stub("fp8_gemm", model_class)
    weights = {"weight": torch.ones(4, 16).to(torch.float8_e4m3fn), "weight_scale": torch.full((4,), 3.0)}
    model = adapter.build_their_model(model_class, (2, 4, 16), weights, torch.device("cpu"))
    assert not model.training and model.weight is not weights["weight"]  # copied, as load_state_dict does
    assert torch.equal(model.weight_scale, weights["weight_scale"]) and torch.equal(model.workspace, torch.zeros(2, 16))


def load_adapter_with_stub(problem: str, model_class):
    stub = type(sys)(layout.AGENT_MODULE)
    stub.Model = model_class
    saved = sys.modules.get(layout.AGENT_MODULE)
    sys.modules[layout.AGENT_MODULE] = stub
    try:
        return load_adapter(problem)
    finally:
        if saved is None:
            del sys.modules[layout.AGENT_MODULE]
        else:
            sys.modules[layout.AGENT_MODULE] = saved
