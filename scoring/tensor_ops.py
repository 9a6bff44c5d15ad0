"""Count what the tensor pipe executed for one call of a solution, by source precision, against the
problem's FLOP formula: `python -m scoring.tensor_ops problem=kda shape=b4_t8k_h16 [solution=PATH]
[out=FILE.json] [seed=0]`.

The counter audit (scoring.audit) judges this for problems that declare one; this command only measures,
for problems whose tensor work legitimately mixes precisions (KDA's TF32 triangular solve beside its bf16
products) or to check a FLOP formula. Needs Nsight Compute (`ncu`) and a GPU.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scoring.audit import PRECISION_METRICS, TENSOR_AUDIT_METRICS, _number, profile_one_call
from scoring.hardware import detect
from scoring.isolation import REPO_ROOT
from scoring.problem import load_problem
from scoring.spec import find_problem


def parse_args(argv: list[str]) -> dict:
    args = {"problem": None, "shape": None, "solution": None, "out": None, "seed": "0"}
    for item in argv:
        key, sep, value = item.partition("=")
        if not sep or key not in args:
            raise SystemExit(f"scoring.tensor_ops: unknown argument {item!r}; expected key=value with key in "
                             f"{', '.join(args)}")
        args[key] = value
    if not args["problem"] or not args["shape"]:
        raise SystemExit("scoring.tensor_ops: problem=NAME and shape=SHAPE_NAME are required")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    problem = load_problem(find_problem(args["problem"]))
    shapes = {s.name: s for s in problem.spec.gpu_shapes.visible + problem.spec.gpu_shapes.held_out}
    if args["shape"] not in shapes:
        raise SystemExit(f"scoring.tensor_ops: no GPU shape {args['shape']!r} in problems/{args['problem']}/problem.toml;"
                         f" shapes: {', '.join(shapes)}")
    shape = dict(shapes[args["shape"]].params)
    solution = Path(args["solution"] or problem.spec.directory / "solutions" / "house.py").resolve()
    hardware = detect("auto", problem.spec.precision)
    if hardware.profile != "gpu":
        raise SystemExit("scoring.tensor_ops: needs a GPU (ncu reads its counters)")
    log_path = Path(args["out"] or "tensor_ops.json").with_suffix(".ncu.log")
    kernels, ncu, why_not = profile_one_call(problem, solution, shape, hardware.device, int(args["seed"]), log_path,
                                             TENSOR_AUDIT_METRICS)
    if kernels is None:
        print(f"not measured: {why_not}", file=sys.stderr)
        return 1
    formula = problem.flops(shape)
    by_precision = {p: sum(_number(k.get(m, "")) for k in kernels) for p, m in PRECISION_METRICS.items()}
    record = {"schema": "ceiling.tensor_ops/1", "problem": args["problem"], "shape_name": args["shape"], "shape": shape,
              "solution": str(solution.relative_to(REPO_ROOT)) if solution.is_relative_to(REPO_ROOT) else str(solution),
              "hardware": hardware.as_dict(), "ncu": ncu, "formula_flops": formula,
              "executed_flops_by_source_precision": by_precision,
              "executed_over_formula": {p: v / formula for p, v in by_precision.items()},
              "kernels": kernels, "command": "python -m scoring.tensor_ops " + " ".join(argv)}
    if args["out"]:
        Path(args["out"]).write_text(json.dumps(record, indent=1))
    print(f"{args['problem']} {args['shape']}: formula {formula:.4g} FLOPs; executed " +
          ", ".join(f"{p} {v:.4g} ({v / formula:.3f}x)" for p, v in by_precision.items() if v))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
