"""gemlite's own GEMV kernel on the repacked weight, on the CPU, in Triton's interpreter: a check of the layout
and of the zero-point semantics with gemlite's code rather than a reimplementation. NOT a GPU run, NOT a speed.

    PYTHONPATH=<dir> python problems/w4a16_gemm/lab/gemlite_interpret_check.py
    (<dir>: pip install --no-index --no-deps --target <dir> .whl/gemlite-*.whl .whl/tqdm-*.whl)

gemlite queries the GPU when imported (torch.cuda's capability, SM count and name; Triton's active driver), so
this process fakes an H100 for those queries (it never touches torch.cuda otherwise: run it alone, never
imported by a test process). gemlite.set_autotune("default") and a benchmarker that runs nothing keep the
autotuner from timing configs. What the interpreter can run, and what it cannot:
  * M <= 4 goes to gemlite's GEMV_REVSPLITK kernel (core.get_matmul_type), run here with fp16 x, scales and
    zeros and fp32 split-K atomics (gemlite.set_native_atomic_bfp16(False)): compared with the problem's fp64
    reference at the problem's tolerance. A control with the zero points dropped (zeros := 0) must fail.
  * bf16 (the contract's dtype) gives NaN here: the interpreter computes bf16 elementwise arithmetic on the
    raw 16-bit integers (scoring/interpreter_fixes.py fixes only its dot and its fp32 -> bf16 cast). The bf16
    dequantisation is checked bit-exactly in pure torch instead (tests/problems/test_w4a16_gemlite.py).
  * M >= 5 (GEMM_SPLITK, GEMM) stops in the interpreter (a tl.int1 mask it cannot hold); the GPU run checks them.
Exit status 0 when every check came out as expected.
"""

import os
import sys
import types
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
LAB = Path(__file__).resolve().parent
REPO = LAB.parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import torch
import triton
from triton.backends.compiler import GPUTarget

H100 = types.SimpleNamespace(name="NVIDIA H100 80GB HBM3", multi_processor_count=132)
SIZES = [(1, 64, 256), (2, 96, 384), (4, 48, 1024)]  # (M, N, K): one to eight groups of 128


class _FakeH100Driver:
    utils = types.SimpleNamespace(get_device_properties=lambda index: {"max_shared_mem": 232448})

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)

    def get_current_device(self):
        return 0

    def get_current_stream(self, *args):
        return 0

    def get_benchmarker(self):
        return lambda fn, quantiles=None, **kwargs: [1.0, 1.0, 1.0] if quantiles else 1.0


def main() -> int:
    torch.cuda.get_device_capability = lambda *args, **kwargs: (9, 0)
    torch.cuda.get_device_properties = lambda *args, **kwargs: H100
    triton.runtime.driver.set_active(_FakeH100Driver())
    from scoring import interpreter_fixes
    from scoring.checking import compare
    from scoring.problem import import_file, load_problem

    interpreter_fixes.apply()
    import gemlite

    gemlite.set_autotune("default")
    gemlite.set_native_atomic_bfp16(False)
    line = import_file(LAB.parent / "solutions" / "baselines" / "library.py", "w4_gemlite_line_interpret")
    problem = load_problem(LAB.parent)
    print(f"gemlite {gemlite.__version__}, triton {triton.__version__} (interpreter), torch {torch.__version__}")
    ok = True
    for M, N, K in SIZES:
        shape = {"M": M, "N": N, "K": K}
        gen = torch.Generator().manual_seed(M * N + K)
        weights = problem.module.make_weights(shape, gen, torch.device("cpu"))
        x = problem.module.make_inputs(shape, weights, gen, torch.device("cpu"))["x"]
        ref = problem.module.reference(weights, {"x": x})
        fp16 = dict(weights, scales=weights["scales"].half(), zeros=weights["zeros"].half())
        no_zeros = dict(fp16, zeros=torch.zeros_like(fp16["zeros"]))
        for label, w, expect in (("fp16", fp16, True), ("fp16, zeros dropped (control)", no_zeros, False)):
            stats = compare(line.run(line.prepare(**w), x.half()), ref, problem.spec.tolerance)
            good = stats.passed == expect
            ok &= good
            print(
                f"M={M} N={N} K={K} {label:30s} passed={stats.passed} normwise {stats.normwise_err:.2e} "
                f"max_abs {stats.max_abs_err:.2e} -> {'as expected' if good else 'UNEXPECTED'}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
