"""Check solution.py on this problem's visible shapes: `python check.py [solution.py]`.

Self-contained (this folder only): the reference is problem.py, the shapes and tolerances are in
problem.json. It checks correctness on a few random draws per shape and prints a rough median time.
The official score is computed elsewhere, on more shapes than these, with stricter timing.
`python check.py help` (or -h, --help) prints this. Exit status: 0 every shape passed, 1 one failed, 2 a usage
error (an option, more than one file, a file that does not exist).
"""

import importlib.util
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    return module


def usage_problem(argv: list[str]) -> str | None:
    """What is wrong with the command line, or None: at most one argument, an existing solution file."""
    if argv and argv[0].startswith("-"):
        return f"{argv[0]}: not an option; the only argument is the solution file"
    if len(argv) > 1:
        return f"one solution file, not {len(argv)}"
    if argv and not Path(argv[0]).is_file():
        return f"{argv[0]}: no such file; give your solution's .py file (default solution.py here)"
    return None


def main(argv: list[str]) -> int:
    if any(arg in ("help", "-h", "--help") for arg in argv):
        print(__doc__.strip())
        return 0
    problem = usage_problem(argv)
    if problem:
        print(f"error: {problem} (python check.py help)", file=sys.stderr)
        return 2
    import torch

    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")  # Triton kernels run in its interpreter on the CPU
    device = "cuda" if torch.cuda.is_available() else "cpu"
    public = json.loads((HERE / "problem.json").read_text())
    problem = load(HERE / "problem.py", "problem")
    solution = load(Path(argv[0] if argv else HERE / "solution.py").resolve(), "solution")
    tol = public["tolerance"]
    shapes = public["visible_shapes"]["gpu" if device == "cuda" else "cpu"]
    failures = 0
    for shape in shapes:
        params = shape["params"]
        ok, detail, times_ms = True, "", []
        for seed in range(3):
            gen = torch.Generator(device=device).manual_seed(1000 + seed)
            weights = problem.make_weights(params, gen, device)
            inputs = problem.make_inputs(params, weights, gen, device)
            state = solution.prepare(**weights) if hasattr(solution, "prepare") else weights
            if device == "cuda":
                torch.cuda.synchronize()
            started = time.perf_counter()
            out = solution.run(state, **inputs)
            if device == "cuda":
                torch.cuda.synchronize()
            times_ms.append((time.perf_counter() - started) * 1e3)
            ref = problem.reference(weights, inputs).to(torch.float64)
            dims, dtype = problem.output_spec(params)
            if type(out) is not torch.Tensor or tuple(out.shape) != tuple(dims) or out.dtype != dtype:
                ok, detail = (
                    False,
                    f"output {type(out).__name__} {getattr(out, 'shape', '?')} "
                    f"{getattr(out, 'dtype', '?')}, expected {tuple(dims)} {dtype}",
                )
                break
            err = (out.to(torch.float64) - ref).abs()
            bad = int((err > tol["atol"] + tol["rtol"] * ref.abs()).sum()) + int((~torch.isfinite(out)).sum())
            norm = float((out.to(torch.float64) - ref).norm() / ref.norm().clamp(min=1e-30))
            if bad or norm > tol["normwise"]:
                ok, detail = False, f"{bad} elements out of tolerance, normwise error {norm:.2e}"
                break
        failures += not ok
        status = "passed" if ok else "FAILED"
        print(f"{shape['name']:<20} {status:<7} median {sorted(times_ms)[len(times_ms) // 2]:10.3f} ms  {detail}")
    print(f"{len(shapes) - failures}/{len(shapes)} visible shapes passed on {device}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
