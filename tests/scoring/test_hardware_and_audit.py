"""The peak table, GPU matching and overrides, the counter audit's judgement of the counter reader's ranges,
and ncu's CSV as scoring.tensor_ops reads it."""

import pytest

from scoring.audit import PRECISION_METRICS, judge_representative, judge_tensor_precision, run_audits
from scoring.ncu_profile import parse_ncu_csv
from scoring.hardware import HardwareError, Peak, _override_peak, load_peak_table, match_peak

REQUIRED_GPUS = {"h100_sxm", "h100_pcie", "h100_nvl", "h200_sxm", "b200", "a100_sxm", "l40s", "rtx_pro_6000_blackwell"}


def test_peak_table_covers_the_required_gpus_with_sane_rows():
    table = load_peak_table()
    assert REQUIRED_GPUS <= set(table)
    for key, row in table.items():
        assert row["names"] and row["sm_count"] > 0 and row["bandwidth_gbps"] > 100, key
        assert all(v > 0 for v in row["tflops"].values()), key
        if "fp8" in row["tflops"]:
            assert row["tflops"]["fp8"] == pytest.approx(2 * row["tflops"]["bf16"], rel=0.02), key


def test_gpus_match_by_nvml_name_and_sm_count():
    assert match_peak("NVIDIA H100 80GB HBM3", 132).key == "h100_sxm"
    assert match_peak("NVIDIA H200", 132).bandwidth_gbps == 4800
    assert match_peak("NVIDIA H100 80GB HBM3", 114) is None  # a cut-down part is not silently an SXM
    assert match_peak("NVIDIA GeForce RTX 4090", 128) is None


def test_unknown_gpu_needs_both_overrides_and_a_missing_precision_is_explained():
    with pytest.raises(HardwareError, match="needs both"):
        _override_peak(None, 100.0, None, "fp8", "Mystery GPU")
    peak = _override_peak(None, 100.0, 1000.0, "fp8", "Mystery GPU")
    assert peak.tflops_for("fp8") == 100.0 and peak.source == "command-line override"
    with pytest.raises(HardwareError, match="peak_tflops="):
        Peak("a100_sxm", "A100", "table", {"bf16": 312.0}, 2039.0, False).tflops_for("fp8")


# Shaped like `ncu --csv --page raw --print-units base` output (a header row, a units row, one row per kernel).
NCU_CSV = '''==PROF== Connected to process 1234
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","gpu__time_duration.sum","sm__ops_path_tensor_src_fp8.sum","sm__ops_path_tensor_src_bf16_dst_fp32.sum","sm__ops_path_tensor_op_hgmma_src_fp16.sum","sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum"
"","","","","","","","ns","","","",""
"0","1234","python3","h","_fp8_gemm_kernel","1","7","41000","{fp8}","{bf16}","0","0"
'''


def test_parse_drops_the_units_row_and_keeps_kernels():
    rows = parse_ncu_csv(NCU_CSV.replace("{fp8}", "10").replace("{bf16}", "0"))
    assert (
        len(rows) == 1 and rows[0]["Kernel Name"] == "_fp8_gemm_kernel" and rows[0]["gpu__time_duration.sum"] == "41000"
    )


def kernels(fp8, bf16):
    """One profiled kernel's range, as the worker's counter reader reports it."""
    metrics = {PRECISION_METRICS["fp8"]: fp8, PRECISION_METRICS["bf16"]: bf16, "gpu__time_duration.sum": 41000.0}
    return [{"range": "0", **metrics}]


def test_fp8_work_equal_to_the_formula_passes():
    outcome, evidence = judge_tensor_precision(kernels(2 * 2048**3, 0), "fp8", 2 * 2048**3)
    assert outcome == "passed" and evidence["executed_share_of_formula"] == pytest.approx(1.0)
    assert evidence["kernel_time_ms"] == pytest.approx(0.041)


def test_bf16_path_is_flagged_x20_and_skipped_work_x22():
    flops = 2 * 2048**3
    assert judge_tensor_precision(kernels(0, flops), "fp8", flops)[0].startswith("failed (X20")
    assert judge_tensor_precision(kernels(flops // 2, 0), "fp8", flops)[0].startswith("failed (X22")
    assert judge_tensor_precision([], "fp8", flops)[0].startswith("not verified")


def test_vendor_kernels_in_the_profiled_call_fail_x21():
    from scoring.vendor_kernels import judge

    where = "launched by the profiled call"
    assert judge(["_fp8_gemm_kernel", "triton_poi_fused_0"], where) == "passed"
    assert judge(["nvjet_sm90_qqtst_128x256_64x4_2x1_v_bz_coopA_NTN"], where).startswith("failed (X21")
    assert judge(["sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"], where).startswith("failed (X21")
    assert judge(["flash_fwd_splitkv_kernel"], where).startswith("failed (X21")


def test_a_profiled_call_that_launched_other_kernels_than_the_timed_calls_fails_x13():
    assert judge_representative(["_fp8_gemm_kernel"], ["_fp8_gemm_kernel"])[0] == "passed"
    swapped = judge_representative(["_fp8_gemm_kernel"], ["_bf16_gemm"])[0]
    assert swapped.startswith("failed (X13") and "timed calls launched _bf16_gemm" in swapped
    assert "only the profiled call launched _fp8_gemm_kernel" in swapped
    extra = judge_representative(["_fp8_gemm_kernel", "_prefetch"], ["_fp8_gemm_kernel"])[0]
    assert extra.startswith("failed (X13") and "timed calls launched" not in extra
    graphs = judge_representative(["graph launch 0x10"], ["graph launch 0x20"])[0]
    assert graphs.startswith("failed (X13")
    assert judge_representative(None, ["_fp8_gemm_kernel"])[0].startswith("not verified")


def test_the_representative_audit_follows_the_precision_audit_of_the_profiled_shape():
    from types import SimpleNamespace

    flops = 2 * 64 * 64 * 64
    shape = SimpleNamespace(name="square", params={"M": 64, "N": 64, "K": 64})
    problem = SimpleNamespace(spec=SimpleNamespace(audits=[SimpleNamespace(expect="fp8")]), flops=lambda _: flops)
    ranges = [{"range": "0", "sm__ops_path_tensor_src_fp8.sum": flops}]
    profile = {
        "timed_call_index": 1,
        "ranges": ranges,
        "why_not": None,
        "launch_names": ["_fp8_gemm_kernel"],
        "timed_calls_launch_names": ["_bf16_gemm"],
    }
    shapes = [{"name": "square", "audit_profile": profile, "kernel_record": {"vendor_kernels": "passed"}}]
    audits = run_audits(problem, shapes, "gpu", (shape, 1))
    assert [a["id"] for a in audits] == ["tensor_precision", "profiled_call_representative", "vendor_kernels"]
    assert audits[0]["outcome"] == "passed"
    assert audits[1]["outcome"].startswith("failed (X13") and audits[1]["shape"] == "square"
    profile["timed_calls_launch_names"] = ["_fp8_gemm_kernel"]
    assert run_audits(problem, shapes, "gpu", (shape, 1))[1]["outcome"] == "passed"


def test_tensor_ops_command_explains_bad_arguments_and_a_missing_gpu():
    """`python -m scoring.tensor_ops` (ncu count of executed tensor FLOPs) refuses clearly, never silently."""
    import subprocess
    import sys

    def run(*args):
        done = subprocess.run(
            [sys.executable, "-m", "scoring.tensor_ops", *args], capture_output=True, text=True, timeout=120
        )
        return done.returncode, done.stdout + done.stderr

    code, text = run("problem=kda", "shape=no_such_shape")
    assert code == 2 and "no GPU shape 'no_such_shape'" in text and "b4_t8k_h16" in text
    code, text = run("problem=kda", "colour=blue")
    assert code == 2 and "unknown key 'colour'" in text
    code, text = run("problem=kda")
    assert code == 2 and "shape=SHAPE_NAME" in text
    import torch

    if not torch.cuda.is_available():
        code, text = run("problem=kda", "shape=b4_t8k_h16")
        assert code != 0 and "needs a GPU" in text


def test_an_audit_the_solution_made_impossible_fails_x31_and_one_the_machine_cannot_run_is_not_verified():
    from types import SimpleNamespace

    shape = SimpleNamespace(name="square", params={"M": 64, "N": 64, "K": 64})
    problem = SimpleNamespace(spec=SimpleNamespace(audits=[SimpleNamespace(expect="fp8")]), flops=lambda _: 1)
    defeated = {
        "timed_call_index": 0,
        "ranges": [],
        "launch_names": [],
        "why_not": "after the call: cuptiRangeProfilerDecodeData: 3 ranges dropped",
    }
    shapes = [{"name": "square", "audit_profile": defeated, "kernel_record": {"vendor_kernels": "passed"}}]
    outcome = run_audits(problem, shapes, "gpu", (shape, 1))[0]["outcome"]
    assert outcome.startswith("failed (X31: the audit could not follow the solution's call")
    machine = dict(defeated, why_not="before the call: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")
    shapes[0]["audit_profile"] = machine
    assert run_audits(problem, shapes, "gpu", (shape, 1))[0]["outcome"].startswith("not verified (before the call")
