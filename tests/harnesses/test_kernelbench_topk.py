"""The topk adapter scores a kernelbench.com 05_topk_bitonic solution unchanged: a plain-torch model in their
interface passes our scorer on the CPU profile, the same model marking taken entries with -inf (right on
their N(0, 1) rows) fails it on the -inf family, the adapter returns their indices (not their values), and
their Model is built once per (batch, n, k) holding their `_dummy` buffer."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from harnesses.kernelbench import layout
from problems.topk.problem import make_inputs, reference

REPO = Path(__file__).resolve().parents[2]
MODELS = Path(__file__).resolve().parent / "kernelbench_models"
PROBLEM = "topk"
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


def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_adapter(model_class=None):
    """The adapter module, with agent_solution a stub holding model_class (restored afterwards)."""
    stub = type(sys)(layout.AGENT_MODULE)
    stub.Model = model_class
    saved = sys.modules.get(layout.AGENT_MODULE)
    sys.modules[layout.AGENT_MODULE] = stub
    try:
        return load_module(f"adapter_{PROBLEM}", layout.adapter_path(PROBLEM))
    finally:
        if saved is None:
            del sys.modules[layout.AGENT_MODULE]
        else:
            sys.modules[layout.AGENT_MODULE] = saved


@pytest.mark.slow
def test_their_interface_passes_through_the_adapter(tmp_path):
    code, result = score(tmp_path, "topk.py")
    assert (code, result["status"]) == (0, "passed"), json.dumps(result.get("shapes"), indent=1)[:3000]


@pytest.mark.slow
def test_taken_entries_marked_with_minus_inf_are_caught(tmp_path):
    code, result = score(tmp_path, "topk_wrong.py")
    assert (code, result["status"]) == (1, "incorrect")
    failed = {shape["name"]: shape["detail"] for shape in result["systems"][0]["shapes"] if shape["status"] != "passed"}
    assert list(failed) == ["neg_inf_4000"] and "repeated indices" in failed["neg_inf_4000"]


@pytest.mark.parametrize("family", [0, 1, 2, 3, 4])
def test_their_model_through_the_adapter_selects_the_reference_values(family):
    """Every family, NaN included: x.gather(indices) equals our reference's sorted top-k (NaN matches NaN)."""
    adapter = load_adapter(load_module("their_topk_model", MODELS / "topk.py").Model)
    shape = {"batch": 3, "n": 700, "k": 20, "family": family}
    inputs = make_inputs(shape, {}, torch.Generator().manual_seed(family), "cpu")
    out = adapter.run(adapter.prepare(), **inputs)
    expected = reference({}, inputs)
    got = inputs["x"].gather(1, out).double()
    assert out.dtype == torch.int64 and out.shape == (3, 20)
    assert bool(((got == expected) | (got.isnan() & expected.isnan())).all())
    assert all(row.unique().numel() == 20 for row in out)


def test_order_keys_follow_the_float_order_with_nan_on_top():
    their_model = load_module("their_topk_model", MODELS / "topk.py")
    ascending = torch.tensor([float("-inf"), -3.5, -1e-30, -0.0, 1e-30, 2.0, float("inf"), float("nan")])
    keys = their_model.order_keys(ascending)
    assert bool((keys[1:] > keys[:-1]).all())
    assert bool((keys > their_model.BELOW_EVERY_KEY).all())


def test_the_adapter_returns_their_indices_and_builds_one_model_per_shape():
    built = []

    class Recording(torch.nn.Module):
        def __init__(self, batch, n, k):
            super().__init__()
            built.append((batch, n, k))
            self.k = k
            self.register_buffer("_dummy", torch.ones(1))  # check.py replaces it with the reference's zeros

        def forward(self, x):
            indices = torch.full((x.shape[0], self.k), int(self._dummy.item()), dtype=torch.int64)
            return [torch.zeros(x.shape[0], self.k), indices]  # a list: their check.py accepts one

    adapter = load_adapter(Recording)
    state = adapter.prepare()
    calls = [(torch.zeros(2, 50), 5), (torch.ones(2, 50), 5), (torch.zeros(2, 50), 7), (torch.zeros(4, 50), 7)]
    outs = [adapter.run(state, x, k) for x, k in calls]
    assert [tuple(out.shape) for out in outs] == [(2, 5), (2, 5), (2, 7), (4, 7)]
    assert all(out.dtype == torch.int64 and int(out.max()) == 0 for out in outs)
    assert built == [(2, 50, 5), (2, 50, 7), (4, 50, 7)]
    assert adapter.their_init_args(torch.zeros(3, 9), 4) == (3, 9, 4)
