"""The program ncu profiles for `scoring.tensor_ops` (scoring/ncu_profile.py): `python -m scoring.audit_target
TASK.json`. No score uses it: the counter audit reads its counters inside the scoring worker.

It warms the solution up outside the profiled range (compilation, autotuning, allocator growth) and
then makes exactly one call inside the NVTX range `ceiling_audit`, which is all ncu collects.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from scoring.ncu_profile import AUDIT_RANGE
from scoring.problem import import_file, load_problem
from scoring.seeds import derive_seed


def main(argv: list[str]) -> int:
    task = json.loads(Path(argv[0]).read_text())
    device = torch.device(task["device"])
    torch.cuda.set_device(device)
    problem = load_problem(task["problem_dir"])
    solution = import_file(Path(task["solution_path"]), "ceiling_solution", folder_importable=True)
    shape = task["shape"]
    gen = torch.Generator(device=device)
    gen.manual_seed(derive_seed(task["seed"], "audit") % 2**63)
    weights = problem.module.make_weights(shape, gen, device)
    prepare = getattr(solution, "prepare", None)
    state = prepare(**weights) if prepare else dict(weights)
    for _ in range(2):
        solution.run(state, **problem.module.make_inputs(shape, weights, gen, device))
    inputs = problem.module.make_inputs(shape, weights, gen, device)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push(AUDIT_RANGE)
    solution.run(state, **inputs)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
