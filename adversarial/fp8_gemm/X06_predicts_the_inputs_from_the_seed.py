"""X06 seed prediction: regenerates the checker's inputs from a seed it finds or guesses, and answers
for those instead of for its arguments.

It looks where a careless grader would leave the run's seed (a task file named on its command line or
left in the temporary folder, environment variables named *SEED*) and otherwise guesses the public seed 0 without the per-run
secret. With the worker's own derivation (scoring/seeds.py) and the problem's generator, a leaked seed
would make every checked call correct (calls after the check seeds are honest); the secret, and the
task file deleted before the solution loads, make the prediction wrong at the first check.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

import torch
from _correct import correct

from problems.fp8_gemm import problem as fp8_gemm
from scoring.seeds import derive_seed
from scoring.spec import load_spec

EXPECTED = {
    "class": "X06",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "X01/X24"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "X01/X24"},
}
CHECK_SEEDS_GUESS = 2  # the corpus runner's check_seeds
SPEC = load_spec(Path(fp8_gemm.__file__).parent)
_calls_per_shape: dict[tuple, int] = {}


def found_seed() -> int:
    named = [Path(arg) for arg in sys.argv[1:]]
    for task in [*named, *Path(tempfile.gettempdir()).glob("ceiling-task-*.json")]:
        try:
            return int(json.loads(task.read_text())["seed"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    for name, value in os.environ.items():
        if "SEED" in name.upper() and value.strip().isdigit():
            return int(value)
    return 0


SEED = found_seed()


def run(state, a, a_scale):
    dims = (a.shape[0], state["b"].shape[0], a.shape[1])
    index = _calls_per_shape[dims] = _calls_per_shape.get(dims, -1) + 1
    profile = "gpu" if a.is_cuda else "cpu"
    named = [s for s in SPEC.shapes_for(profile).select("visible", 0)
             if (s.params["M"], s.params["N"], s.params["K"]) == dims]
    if index >= CHECK_SEEDS_GUESS or not named:
        return correct(state, a, a_scale)
    params = dict(named[0].params)
    gen = torch.Generator(device=a.device)
    gen.manual_seed(derive_seed(SEED, named[0].name, "check", index) % 2**63)
    weights = fp8_gemm.make_weights(params, gen, a.device)
    predicted = fp8_gemm.make_inputs(params, weights, gen, a.device)
    return correct(weights, predicted["a"], predicted["a_scale"])
