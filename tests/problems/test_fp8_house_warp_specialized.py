"""The warp-specialised FP8 candidate (problems/fp8_gemm/lab/house_warp_specialized.py, issue 37) on the CPU.

Two halves. (1) Correctness in Triton's interpreter: every variant of VARIANTS and the decode and small-M
configurations, on small shapes with M, N and K not multiples of the tiles, against the problem's fp64 reference
and tolerance (scoring/checking.compare) and its per-call verification (verify_call). The interpreter runs the
kernel's arithmetic one program at a time and ignores `warp_specialize`, so this half checks the tile walk, the
masks, the scales and the epilogues, not the warp-specialised schedule. (2) What the compiler makes of the kernel
for sm_90, without a GPU (lab/compile_sm90.py): the default large variant must come out warp-specialised (one
producer and two consumer warpgroups, 12 warps), with fp32 promotion kept on every wgmma and no spills; num_warps
other than 4 would silently compile a plain kernel, and a host-built TMA descriptor for C would not compile.
Nothing here says anything about speed (lab/bench_ws.py, on the GPU).
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

os.environ.setdefault("TRITON_INTERPRET", "1")

from scoring.checking import compare  # noqa: E402  (after TRITON_INTERPRET)
from scoring.problem import import_file, load_problem  # noqa: E402
from tests.problems.helpers import score_on_cpu  # noqa: E402

PROBLEM_DIR = Path(__file__).resolve().parents[2] / "problems" / "fp8_gemm"
problem = load_problem(PROBLEM_DIR)
candidate = import_file(PROBLEM_DIR / "lab" / "house_warp_specialized.py", "fp8_house_ws_test")


def _case(M, N, K, seed=0):
    shape = {"M": M, "N": N, "K": K}
    gen = torch.Generator().manual_seed(seed)
    weights = problem.module.make_weights(shape, gen, "cpu")
    inputs = problem.module.make_inputs(shape, weights, gen, "cpu")
    return weights, inputs


def _assert_correct(out, weights, inputs):
    tolerance = problem.spec.tolerance
    stats = compare(out, problem.module.reference(weights, inputs), tolerance)
    assert stats.passed, stats.detail
    verified = problem.module.verify_call(out, weights, inputs, torch.Generator().manual_seed(5), tolerance)
    assert verified.passed, verified.detail


# (M, N, K): a partial last M band, N not a multiple of the N tile, K tails of 16..112 below BLOCK_K, several tiles
# per program (the persistent loop runs 4 programs on the CPU), and K over two or more K steps.
SHAPES = [(300, 144, 272), (257, 272, 400), (520, 128, 128)]


@pytest.mark.parametrize("variant", sorted(candidate.VARIANTS))
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_every_variant_matches_the_reference(variant, M, N, K):
    weights, inputs = _case(M, N, K)
    out, _compiled = candidate.fp8_gemm(
        inputs["a"], weights["b"], inputs["a_scale"], weights["b_scale"], config=candidate.VARIANTS[variant]
    )
    assert out.shape == (M, N) and out.dtype == torch.bfloat16
    _assert_correct(out, weights, inputs)


@pytest.mark.parametrize(
    "M,N,K", [(1, 48, 80), (16, 96, 272), (64, 256, 256), (65, 80, 144), (256, 128, 160), (300, 144, 272)]
)
def test_run_dispatches_every_regime_correctly(M, N, K):
    """prepare() and run() as the scorer calls them: decode, small-M and the large (warp-specialised) rule."""
    weights, inputs = _case(M, N, K, seed=1)
    state = candidate.prepare(weights["b"], weights["b_scale"])
    _assert_correct(candidate.run(state, inputs["a"], inputs["a_scale"]), weights, inputs)


def test_configs_that_would_silently_change_the_kernel_are_refused():
    base = candidate.VARIANTS[candidate.LARGE_VARIANT]
    with pytest.raises(ValueError, match="num_warps=4"):
        candidate.check_config(dict(base, num_warps=8))
    with pytest.raises(ValueError, match="host TMA"):
        candidate.check_config(dict(base, EPILOGUE=candidate.EPILOGUE_HOST_TMA))
    with pytest.raises(ValueError, match="every dot promotes"):
        candidate.check_config(dict(base, BLOCK_K=64, PROMOTE_K=128))  # fast_accum in disguise
    for config in [candidate.DECODE_CONFIG, candidate.SMALL_M_CONFIG, *candidate.VARIANTS.values()]:
        candidate.check_config(config)


def _compile_sm90_or_skip(config, check=True):
    """lab/compile_sm90.compile_sm90 in a fresh process without TRITON_INTERPRET: in this one (the candidate
    imported under the interpreter), a second sm_90 compile failed inside Triton's code generator ("'ir.value'
    object has no attribute 'data'"), while the same two compiles pass in a fresh process."""
    if importlib.util.find_spec("triton.backends.nvidia") is None:
        pytest.skip("this Triton has no NVIDIA backend to compile for sm_90 with")
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from compile_sm90 import compile_sm90; "
        "print(json.dumps(compile_sm90(json.loads(sys.argv[2]), check=sys.argv[3] == 'check')))"
    )
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run(
        [sys.executable, "-c", code, str(PROBLEM_DIR / "lab"), json.dumps(config), "check" if check else "no-check"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_default_large_variant_compiles_warp_specialised_for_sm90_with_promotion():
    report = _compile_sm90_or_skip(candidate.VARIANTS[candidate.LARGE_VARIANT])
    assert report["warp_specialized"] and report["launch_warps"] == 12, report  # producer + two consumers
    assert report["dots"] == 2 and report["promoted_dots"] == 2, report  # one wgmma per consumer, each promoted
    assert report["stack_bytes"] == 0, report  # no spills
    assert report["shared_bytes"] <= 232448, report  # fits an H100's shared memory per CTA


def test_eight_warps_compile_a_plain_kernel_for_sm90():
    """Why check_config insists on num_warps=4: the Hopper pass skips any other count without a word."""
    config = dict(candidate.VARIANTS[candidate.LARGE_VARIANT], num_warps=8)  # warp_specialize still asked for
    report = _compile_sm90_or_skip(config, check=False)
    assert not report["warp_specialized"] and report["launch_warps"] == 8, report


def test_the_scorer_runs_the_candidate_on_the_cpu_profile(tmp_path):
    """The scorer's own CPU run (interface, forbidden-op guard, every CPU-profile shape): these shapes have
    M <= 96, so this covers the decode and small-M paths; the large path is covered by the tests above."""
    result = score_on_cpu("fp8_gemm", PROBLEM_DIR / "lab" / "house_warp_specialized.py", tmp_path)
    shapes = result["systems"][0]["shapes"]
    assert result["status"] == "passed", [(s["name"], s["status"], s.get("detail")) for s in shapes]


def test_bench_ws_runs_end_to_end_on_the_cpu(tmp_path):
    """The GPU session's script (lab/bench_ws.py) in its --device cpu smoke mode: every line checked and timed."""
    out = tmp_path / "bench_ws.json"
    done = subprocess.run(
        [
            sys.executable,
            str(PROBLEM_DIR / "lab" / "bench_ws.py"),
            "--device",
            "cpu",
            "--budget-s",
            "0.05",
            "--variants",
            f"{candidate.LARGE_VARIANT},plain_256x128x128_s3_host_tma",
            "--out",
            str(out),
        ],
        check=False,
        env={**os.environ, "TRITON_INTERPRET": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(out.read_text())["rows"]
    assert [r for r in rows if "error" in r] == []
    lines = {r["line"] for r in rows}
    assert {"cublaslt", "house", "candidate-rule", candidate.LARGE_VARIANT} <= lines
    assert all(r["fraction"] > 0 for r in rows)
