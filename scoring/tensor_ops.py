"""Count what the tensor pipe executed for one call of a solution, by source precision, against the
problem's FLOP formula: `python -m scoring.tensor_ops problem=kda shape=b4_t8k_h16 [solution=PATH]
[out=FILE.json] [seed=0]`.

The counter audit (scoring.audit) judges this for problems that declare one; this command only measures,
for problems whose tensor work legitimately mixes precisions (KDA's TF32 triangular solve beside its bf16
products) or to check a FLOP formula. Needs Nsight Compute (`ncu`) and a GPU.

Options on the shared `key=value` parser (scoring/options.py: `help` anywhere, a repeated or unknown key
refused). Exit status: 0 measured, 1 not measured (no GPU, ncu profiled nothing), 2 a usage error (an unknown
key, problem or shape, a missing solution file).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from scoring.options import OptionError, help_text, opt, parse, wants_help
from scoring.spec import SpecError, suggest

COMMAND = "python -m scoring.tensor_ops"
USAGE = f"{COMMAND} problem=NAME shape=SHAPE_NAME [key=value ...]"


@dataclass(frozen=True)
class TensorOpsOptions:
    problem: str = opt("", "problem folder name under problems/ (required)")
    shape: str = opt("", "name of one of the problem's GPU shapes, visible or held-out (required)")
    solution: str = opt("", "solution file; empty = the problem's house kernel (solutions/house.py)")
    out: str = opt("", "write the record as JSON to this file (ncu's log beside it); empty = print only")
    seed: int = opt(0, "seed of the call's inputs")


def parse_args(argv: list[str]) -> TensorOpsOptions:
    options = parse(TensorOpsOptions, argv, COMMAND)
    if not options.problem or not options.shape:
        raise OptionError(f"problem=NAME and shape=SHAPE_NAME are required; run `{COMMAND} help` for the keys")
    if options.solution and not Path(options.solution).is_file():
        raise OptionError(
            f"solution={options.solution}: no such file; give a .py file, or leave it empty for the house kernel"
        )
    return options


def main(argv: list[str]) -> int:
    if not argv or wants_help(argv):
        print(help_text(TensorOpsOptions, USAGE))
        return 0
    try:
        args = parse_args(argv)
        problem, shape = _problem_and_shape(args)
    except (OptionError, SpecError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from scoring.audit import PRECISION_METRICS, counter_number
    from scoring.hardware import detect
    from scoring.isolation import REPO_ROOT
    from scoring.ncu_profile import NCU_METRICS, profile_one_call

    solution = Path(args.solution or problem.spec.directory / "solutions" / "house.py").resolve()
    hardware = detect("auto", problem.spec.precision)
    if hardware.profile != "gpu":
        print("not measured: needs a GPU (ncu reads its counters)", file=sys.stderr)
        return 1
    log_path = Path(args.out or "tensor_ops.json").with_suffix(".ncu.log")
    kernels, ncu, why_not = profile_one_call(
        problem, solution, shape, hardware.device, args.seed, log_path, NCU_METRICS
    )
    if kernels is None:
        print(f"not measured: {why_not}", file=sys.stderr)
        return 1
    formula = problem.flops(shape)
    by_precision = {p: sum(counter_number(k.get(m, "")) for k in kernels) for p, m in PRECISION_METRICS.items()}
    record = {
        "schema": "ceiling.tensor_ops/1",
        "problem": args.problem,
        "shape_name": args.shape,
        "shape": shape,
        "solution": str(solution.relative_to(REPO_ROOT)) if solution.is_relative_to(REPO_ROOT) else str(solution),
        "hardware": hardware.as_dict(),
        "ncu": ncu,
        "formula_flops": formula,
        "executed_flops_by_source_precision": by_precision,
        "executed_over_formula": {p: v / formula for p, v in by_precision.items()},
        "kernels": kernels,
        "command": "python -m scoring.tensor_ops " + " ".join(argv),
    }
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1))
    print(
        f"{args.problem} {args.shape}: formula {formula:.4g} FLOPs; executed "
        + ", ".join(f"{p} {v:.4g} ({v / formula:.3f}x)" for p, v in by_precision.items() if v)
    )
    return 0


def _problem_and_shape(args: TensorOpsOptions):
    """The loaded problem and the named GPU shape's parameters. The shape is looked up in the problem's data
    file first (torch-free), so a misspelt shape is a usage error before the problem's code is imported."""
    from scoring.problem import load_problem
    from scoring.spec import find_problem, load_spec

    directory = find_problem(args.problem)
    spec = load_spec(directory)
    shapes = {s.name: s for s in spec.gpu_shapes.visible + spec.gpu_shapes.held_out}
    if args.shape not in shapes:
        raise OptionError(
            f"no GPU shape '{args.shape}' in problems/{args.problem}/problem.toml"
            f"{suggest(args.shape, shapes)}; give shape= one of {', '.join(shapes)}"
        )
    return load_problem(directory), dict(shapes[args.shape].params)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
