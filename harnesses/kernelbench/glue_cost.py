"""The per-call glue of the kernelbench adapters, timed with the scorer's timer, against each shape's roofline.

    python -m harnesses.kernelbench.glue_cost [device=cuda] [out=FILE.json]

An adapter may add one tiny operation to every call (docs/kernelbench.md); its time is charged to the agent's
file. This times that operation alone with `scoring.bench.time_calls` (the L2 flush, the launch gate and the
scorer's stopping rule) on the problem's visible and held-out shapes, and sets it beside the shape's roofline
time: the share of a perfect kernel's time the glue would take. The statements are the adapters' own
(harnesses/kernelbench/adapters/), restated here because an adapter module imports an agent's file:

- fp8_gemm: `torch.mul(b_scale_row, a_scale, out=weight_scale)` over the N output channels, every call;
- paged_attention: `torch.nn.functional.pad(block_table, (0, missing))`, on the calls whose table is narrower than
  the model's (the widest seen); timed here for a table one page narrower than the widest of 8 draws.

Writes FILE.json when asked (hardware, versions and the command in it) and prints a table. Options on the shared
`key=value` parser (scoring/options.py); `help` answers without importing torch, a usage error exits 2.
"""

from __future__ import annotations

import datetime
import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from scoring.options import OptionError, help_text, opt, parse, wants_help

if TYPE_CHECKING:
    import torch

COMMAND = "python -m harnesses.kernelbench.glue_cost"

PAGED_DRAWS = 8  # tables drawn per shape: the adapter's model is as wide as the widest it has seen


def fp8_glue(shape: dict, module, gen: torch.Generator, device: str):
    import torch

    weights = module.make_weights(shape, gen, device)
    inputs = module.make_inputs(shape, weights, gen, device)
    b_scale_row = weights["b_scale"].expand(shape["N"])
    weight_scale = b_scale_row.contiguous()
    return lambda: torch.mul(b_scale_row, inputs["a_scale"], out=weight_scale)


def paged_glue(shape: dict, module, gen: torch.Generator, device: str):
    import torch

    weights = module.make_weights(shape, gen, device)
    tables = [module.make_inputs(shape, weights, gen, device)["block_table"] for _ in range(PAGED_DRAWS)]
    widest = max(table.shape[1] for table in tables)
    narrower = next((t for t in tables if t.shape[1] < widest), tables[0][:, : max(widest - 1, 1)])
    missing = widest - narrower.shape[1]
    return lambda: torch.nn.functional.pad(narrower, (0, missing))


GLUE = {"fp8_gemm": fp8_glue, "paged_attention": paged_glue}


@dataclass(frozen=True)
class GlueOptions:
    device: str = opt("cuda", "device the glue runs on: cuda, cuda:N or cpu")
    out: str = opt("", "write the rows, hardware and command as JSON to this file; empty = print the table only")


def measure(problem_name: str, device: str, hardware) -> list[dict]:
    import torch

    from scoring.bench import time_calls
    from scoring.problem import load_problem
    from scoring.roofline import roofline_ms
    from scoring.spec import discover_problems

    problem = load_problem(discover_problems()[problem_name])
    peak_tflops = hardware.peak.tflops_for(problem.spec.precision)
    deck, rows = problem.spec.shapes_for(hardware.profile), []
    for shape in deck.select("visible", 0) + deck.select("held_out", 0):
        gen = torch.Generator(device=device).manual_seed(0)
        glue = GLUE[problem_name](dict(shape.params), problem.module, gen, device)
        stats = time_calls(glue, device=device)
        floor_ms, bound = roofline_ms(
            problem.flops(shape.params), problem.bytes_moved(shape.params), peak_tflops, hardware.peak.bandwidth_gbps
        )
        rows.append(
            {
                "problem": problem_name,
                "shape": shape.name,
                "glue_median_us": stats.median_ms * 1e3,
                "glue_p90_us": stats.p90_ms * 1e3,
                "calls": stats.count,
                "roofline_us": floor_ms * 1e3,
                "bound": bound,
                "share_of_roofline": stats.median_ms / floor_ms,
            }
        )
    return rows


def main(argv: list[str]) -> int:
    if wants_help(argv):
        print(help_text(GlueOptions, f"{COMMAND} [key=value ...]") + "\n\n" + __doc__.strip())
        return 0
    try:
        options = parse(GlueOptions, argv, COMMAND)
    except OptionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from scoring.hardware import detect
    from scoring.problem import load_problem
    from scoring.run import git_state
    from scoring.spec import discover_problems

    device = options.device
    rows = []
    for problem_name in GLUE:
        hardware = detect(device, load_problem(discover_problems()[problem_name]).spec.precision)
        rows += measure(problem_name, device, hardware)
    print(f"{'problem':16} {'shape':26} {'glue us':>8} {'p90 us':>7} {'roofline us':>12} {'share':>7}")
    for row in rows:
        print(
            f"{row['problem']:16} {row['shape']:26} {row['glue_median_us']:8.2f} {row['glue_p90_us']:7.2f} "
            f"{row['roofline_us']:12.1f} {row['share_of_roofline']:7.2%}"
        )
    if options.out:
        Path(options.out).write_text(
            json.dumps(
                {
                    "schema": "ceiling.kernelbench-glue/1",
                    "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    "command": shlex.join([sys.executable, "-m", "harnesses.kernelbench.glue_cost", *argv]),
                    "ceiling": git_state(),
                    "hardware": hardware.as_dict(),
                    "rows": rows,
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
