"""The KDA reference, chunked (problem.py: chunked_kda, what reference() runs) against the step-by-step
recurrence (recurrent_kda, the definition), on the problem's own shapes on a GPU: seconds each and how far
apart they are. Why: the step-by-step reference made the checks take most of a KDA run (3 check seeds and
the last timed call, ~10 s each on b1_t32k_h16 on an H100) and filled the kernel record with its launches.

    python problems/kda/lab/reference_speed.py [shapes=b1_t32k_h16,b8_t4k_h32] [out=FILE.json]
"""

import json
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from problems.kda.problem import chunked_kda, make_inputs, make_weights, recurrent_kda  # noqa: E402
from scoring.problem import load_problem  # noqa: E402


def seconds(fn):
    torch.cuda.synchronize()
    start = time.perf_counter()
    result = fn()
    torch.cuda.synchronize()
    return result, time.perf_counter() - start


def main(argv):
    options = dict(arg.split("=", 1) for arg in argv)
    deck = load_problem(REPO / "problems" / "kda").spec.gpu_shapes
    shapes = {shape.name: dict(shape.params) for shape in deck.visible + deck.held_out}
    names = options.get("shapes", "b1_t32k_h16,b8_t4k_h32").split(",")
    rows = []
    for name in names:
        params = shapes[name]
        gen = torch.Generator(device="cuda").manual_seed(0)
        inputs = make_inputs(params, make_weights(params, gen, "cuda"), gen, "cuda")
        args = [inputs[key] for key in ("q", "k", "v", "g", "beta")]
        chunked_kda(*[x[:, :128] for x in args], inputs["scale"])  # first-use costs (cuBLAS, solver) out
        (o_chunk, _), chunk_s = seconds(lambda: chunked_kda(*args, inputs["scale"]))
        (o_step, _), step_s = seconds(lambda: recurrent_kda(*args, inputs["scale"]))
        diff = float((o_chunk - o_step).abs().max())
        rows.append({"shape": name, "params": params, "recurrent_s": step_s, "chunked_s": chunk_s,
                     "max_abs_diff": diff, "max_abs_output": float(o_step.abs().max()),
                     "peak_memory_gib": torch.cuda.max_memory_allocated() / 2**30})
        del o_chunk, o_step
        torch.cuda.empty_cache()
    record = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "command": " ".join([sys.executable, *sys.argv]), "rows": rows}
    if "out" in options:
        Path(options["out"]).write_text(json.dumps(record, indent=1) + "\n")
    print(f"{'shape':14} {'recurrent s':>12} {'chunked s':>10} {'speed-up':>9} {'max |diff|':>11} {'max |o|':>8}")
    for row in rows:
        print(f"{row['shape']:14} {row['recurrent_s']:12.2f} {row['chunked_s']:10.3f} "
              f"{row['recurrent_s'] / row['chunked_s']:8.0f}x {row['max_abs_diff']:11.2e} {row['max_abs_output']:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
