"""Whatever a solution does, the scorer classifies it per shape and keeps the other shapes' results.

The cases are the adversaries of adversarial/fp8_gemm/ (each file declares EXPECTED; see
scoring/corpus/cases.py), scored end to end on the CPU profile with the corpus runner's settings and
judged by the corpus runner's own comparison. A case the CPU profile cannot exercise says why in its
file and is listed here as skipped with that reason.
"""

from pathlib import Path

import pytest

from scoring.config import RunConfig
from scoring.corpus.cases import CORPUS_ROOT, corpus_cases
from scoring.corpus.judge import mismatches
from scoring.corpus.runner import CorpusConfig, run_config
from scoring.run import run
from scoring.seeds import mix

CASES = {case.path.stem: case for case in corpus_cases() if case.problem == "fp8_gemm"}


def score(case, out: Path, **overrides) -> dict:
    config = run_config(case, CorpusConfig(device="cpu", out=str(out)), "cpu")
    return run(RunConfig(**{**config.__dict__, **overrides}), ["(test)"])[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_solution_behaviour_is_classified(case, tmp_path):
    expected = CASES[case].expected["cpu"]
    if expected.not_exercised:
        pytest.skip(f"not exercised in the CPU profile: {expected.not_exercised}")
    result = score(CASES[case], tmp_path)
    assert mismatches(CASES[case], expected, result) == [], [
        (s["name"], s["status"], s.get("detail")) for s in result["systems"][0]["shapes"]]
    assert result["score"]["fraction"] == 0.0


def test_the_seed_predicting_adversary_passes_when_the_seed_leaks(tmp_path, monkeypatch):
    """X06: the adversary is real (with the run's seed in its environment it passes every shape), so its
    rejection in test_solution_behaviour_is_classified shows the seed did not reach it."""
    secret = "00112233aabbccdd"
    monkeypatch.setenv("LEAKED_SEED", str(mix(0, secret)))  # the child inherits the parent's environment
    result = score(CASES["X06_predicts_the_inputs_from_the_seed"], tmp_path, seed_secret=secret)
    assert result["status"] == "passed", [(s["name"], s.get("detail")) for s in result["systems"][0]["shapes"]]


def test_every_corpus_file_is_a_case():
    files = {p.stem for p in (CORPUS_ROOT / "fp8_gemm").glob("*.py") if not p.name.startswith("_")}
    assert files == set(CASES)


def test_a_gpu_worker_compiles_triton_even_when_the_caller_set_the_interpreter(monkeypatch):
    """CPU test modules set TRITON_INTERPRET=1 at import; GPU scoring tests in the same pytest process
    inherited it and ran the house kernels in the interpreter on GPU tensors."""
    from scoring.isolation import child_env

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert "TRITON_INTERPRET" not in child_env("cuda")
    assert child_env("cpu")["TRITON_INTERPRET"] == "1"
    monkeypatch.delenv("TRITON_INTERPRET")
    assert child_env("cpu")["TRITON_INTERPRET"] == "1"


def test_a_system_stops_after_max_timed_out_shapes(tmp_path):
    """A timeout costs shape_timeout_s and fails the system already: past the limit the rest are not run,
    and say why; the shapes before it keep their results."""
    result = score(CASES["robustness_hangs_on_unaligned_k"], tmp_path, shapes="visible", shape_timeout_s=5,
                   max_timed_out_shapes=1)
    shapes = {s["name"]: s for s in result["systems"][0]["shapes"]}
    assert [shapes[n]["status"] for n in ("square_64", "k_unaligned_112", "decode_m4")] == \
        ["passed", "timeout", "not_run"]
    assert "max_timed_out_shapes=1" in shapes["decode_m4"]["detail"]
    assert result["status"] == "timeout" and result["score"]["fraction"] == 0.0
