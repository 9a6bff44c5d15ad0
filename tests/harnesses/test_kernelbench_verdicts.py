"""kernelbench.com's contract per problem and the three verdicts, on fixtures shaped like the committed
re-scored results (results/h100_sxm, results/h200_sxm): the cases issue 33 names, one per problem and class."""

import pytest

from harnesses.kernelbench.their_contract import ContractError, load, parse
from harnesses.kernelbench.verdicts import LEGEND, on_their_forbidden_list, verdict

CONTRACTS = load()
OFFERED_THEN = "CUTLASS 4.2.0 source tree, offered at ./cutlass, /tmp/cutlass and CUTLASS_DIR/ROOT/PATH/HOME/INCLUDE"
NORMWISE = {
    "fp8_gemm": 5e-3,
    "w4a16_gemm": 5e-3,
    "moe_swiglu": 1e-2,
    "kda": 5e-3,
    "paged_attention": 5e-3,
    "topk": None,
}


def shape(name, params, status="passed", shape_set="visible", detail="", **check):
    return {
        "name": name,
        "shape_set": shape_set,
        "params": params,
        "status": status,
        "detail": detail,
        "check": check or {"passed": status == "passed"},
    }


def result(problem, *shapes, correct=True, run_id="20260719_000000_x_y_z", cutlass=OFFERED_THEN, status=None):
    statuses = {s["status"] for s in shapes}
    status = status or ("passed" if statuses == {"passed"} else next(s for s in statuses if s != "passed"))
    return {
        "problem": {"name": problem, "tolerance": {"rtol": 0.016, "atol": 0.01, "normwise": NORMWISE[problem]}},
        "agent": {
            "rescored_from": "kernelbench.com",
            "source": {"run_id": run_id},
            "published": {
                "correct": correct,
                "peak_fraction": 0.2 if correct else None,
                "failure_reason": None if correct else "wrong output on shape 3",
            },
            "environment": {"cutlass": cutlass},
        },
        "status": status,
        "systems": [{"status": status, "shapes": list(shapes), "audits": []}],
    }


def near(name, params, shape_set="visible", max_abs=0.054):  # fp8 fast accumulation: 22 of 6.7e7 elements
    return shape(
        name,
        params,
        "incorrect",
        shape_set,
        "X01/X24: 22 of 67108864 elements outside atol+rtol*|ref|",
        passed=False,
        bad_elements=22,
        elements=67108864,
        normwise_err=0.00264,
        nonfinite_elements=0,
        max_abs_err=max_abs,
        max_rel_err=1.0,
    )


def wrong(name, params, shape_set="visible", max_abs=1.92, normwise=0.377):
    return shape(
        name,
        params,
        "incorrect",
        shape_set,
        f"X23/X01/X24: normwise error {normwise}",
        passed=False,
        bad_elements=437415,
        elements=458752,
        normwise_err=normwise,
        nonfinite_elements=0,
        max_abs_err=max_abs,
        max_rel_err=1e3,
    )


def nan(name, params, shape_set="visible"):
    return shape(
        name,
        params,
        "incorrect",
        shape_set,
        "X01/X24: 90112 NaN/Inf elements",
        passed=False,
        bad_elements=90112,
        elements=131072,
        normwise_err=float("inf"),
        nonfinite_elements=90112,
        max_abs_err=float("inf"),
        max_rel_err=float("inf"),
    )


def crash(name, params, shape_set, detail):
    return shape(name, params, "runtime_error", shape_set, detail)


# ---- their contract, one test per problem ----


def test_every_problem_has_a_contract_and_their_own_shapes_are_inside_it():
    assert set(CONTRACTS) == {"fp8_gemm", "w4a16_gemm", "moe_swiglu", "kda", "paged_attention", "topk"}
    for contract in CONTRACTS.values():
        assert contract.their_shapes and all(contract.outside(s) == [] for s in contract.their_shapes), contract.problem
        assert contract.sources[0] == f"benchmarks/hard/problems-h100/{contract.their_problem}/problem.yaml"


def test_fp8_contract_tolerance_0_2_allows_cutlass_and_matmul_and_covers_every_shape():
    fp8 = CONTRACTS["fp8_gemm"]
    assert (fp8.atol, fp8.rtol) == (0.2, 0.2) and fp8.forbidden == ("torch._scaled_mm", "torch.ops.aten._scaled_mm")
    assert "CUTLASS" in fp8.allowed_there and fp8.outside({"M": 3000, "N": 5120, "K": 4112}) == []
    assert fp8.within_tolerance(0.054) and not fp8.within_tolerance(1.92)


def test_kda_contract_needs_t_a_multiple_of_64_and_k_v_128():
    kda = CONTRACTS["kda"]
    assert kda.atol == 0.05 and kda.outside({"B": 2, "T": 16384, "H": 32, "K": 128, "V": 128}) == []
    broken = kda.outside({"B": 2, "T": 10000, "H": 32, "K": 128, "V": 128})
    assert [(rule.label, value) for rule, value in broken] == [("T a multiple of 64", "T = 10000")]
    assert "strong decays" in kda.unseen_input({"T": 4096, "K": 128})


def test_paged_contract_limits_the_gqa_group_to_4_and_8_and_the_head_dim_to_64_and_128():
    paged = CONTRACTS["paged_attention"]
    assert paged.atol == 0.02 and "torch.nn.functional.scaled_dot_product_attention" in paged.forbidden
    assert paged.outside({"G": 8, "D": 128, "L": 8192}) == []
    assert [value for _, value in paged.outside({"G": 7, "D": 96})] == ["G = 7", "D = 96"]


def test_topk_contract_limits_k_to_their_set_and_names_minus_inf_rows_an_unseen_input():
    topk = CONTRACTS["topk"]
    assert topk.atol == 1e-4 and "Tensor.sort" in topk.forbidden
    assert topk.outside({"batch": 256, "n": 128256, "k": 50})[0][1] == "k = 50"
    assert topk.outside({"batch": 32, "n": 1048576, "k": 64}) == []  # n was varied there: free
    assert "-inf" in topk.unseen_input({"family": 3}) and topk.unseen_input({"family": 0}) == ""


def test_moe_contract_limits_experts_to_64_and_128_and_records_their_flop_formula():
    moe = CONTRACTS["moe_swiglu"]
    assert moe.atol == 0.02 and "torch.matmul" in moe.forbidden and "torch.einsum" in moe.allowed_there
    assert moe.outside({"E": 160, "topk": 6})[0][1] == "E = 160" and moe.outside({"E": 64, "topk": 6}) == []
    assert moe.flops_formula == "2 * T_total * H * (2 * I)" and "topk" in moe.our_flops_formula
    assert "skewed routing" in moe.unseen_input({"routing": 1}) and moe.unseen_input({"routing": 0}) == ""


def test_w4a16_contract_holds_k_at_their_4096():
    w4 = CONTRACTS["w4a16_gemm"]
    assert w4.atol == 0.1 and "torch.nn.functional.linear" in w4.forbidden
    assert w4.outside({"M": 128, "N": 14336, "K": 4096}) == [] and w4.outside({"M": 1, "N": 28672, "K": 8192})


def test_a_malformed_contract_is_refused_naming_the_file_the_field_and_the_fix():
    table = {
        "their_problem": "01_fp8_gemm",
        "atol": 0.2,
        "rtol": 0.2,
        "tolerance_source": "x",
        "forbidden": [],
        "allowed_there": "x",
        "their_shapes": [],
        "inputs": "x",
        "rules": [],
        "regime": "compute",
        "peak_key": "fp8",
    }
    assert parse({"fp8_gemm": table})["fp8_gemm"].atol == 0.2
    with pytest.raises(ContractError, match=r"their_contracts.toml: \[fp8_gemm\] field 'atol'.*add it"):
        parse({"fp8_gemm": dict(table, atol="0.2")})
    with pytest.raises(ContractError, match=r"kind 'range' is not one of in_set, multiple_of"):
        parse({"fp8_gemm": dict(table, rules=[{"kind": "range", "param": "M", "values": [1], "why": "x"}])})


# ---- verdicts, per problem and per class ----

FP8 = {
    "square_8192": {"M": 8192, "N": 8192, "K": 8192},
    "decode_m16": {"M": 16, "N": 8192, "K": 8192},
    "decode_m64_7168": {"M": 64, "N": 7168, "K": 7168},
    "mlp_down_rect": {"M": 4096, "N": 4096, "K": 14336},
}


def test_a_passing_file_is_verdict_a():
    assert verdict(result("fp8_gemm", shape("square_8192", FP8["square_8192"]))).letter == "a"
    assert LEGEND["a"] == "passes our full contract"


def test_fp8_near_misses_within_their_0_2_are_verdict_b_with_their_tolerance_named():
    v = verdict(
        result(
            "fp8_gemm",
            near("square_8192", FP8["square_8192"]),
            shape("decode_m16", FP8["decode_m16"]),
            near("mlp_down_rect", FP8["mlp_down_rect"], "held_out"),
        )
    )
    assert v.letter == "b"
    assert v.reasons == ("within their tolerance (0.2 abs/rel), beyond ours: square_8192, mlp_down_rect",)


def test_kimi_fp8_reading_past_k_is_verdict_c_at_decode_m64_7168():
    kimi = result(
        "fp8_gemm",
        near("square_8192", FP8["square_8192"]),
        wrong("decode_m16", FP8["decode_m16"], max_abs=0.0449, normwise=0.0053),  # within their 0.2
        wrong("decode_m64_7168", FP8["decode_m64_7168"], "held_out"),
    )
    v = verdict(kimi)
    assert v.letter == "c" and v.shape == "decode_m64_7168" and "0.377" in v.error
    assert v.summary.startswith("wrong inside their contract at decode_m64_7168")


def test_cutlass_and_matmul_refused_here_are_verdict_b():
    cutlass = shape(
        "square_8192",
        FP8["square_8192"],
        "forbidden_op",
        detail="X21: vendor library kernels launched by "
        "the solution: _ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversal",
    )
    assert verdict(result("fp8_gemm", cutlass)).reasons == (
        "forbidden here, allowed there: CUTLASS kernels: square_8192",
    )
    matmul = shape(
        "square_8192",
        FP8["square_8192"],
        "forbidden_op",
        detail="ForbiddenOpError: X21: forbidden operator aten::matmul called by the solution",
    )
    assert verdict(result("fp8_gemm", matmul)).letter == "b"


def test_topk_names_on_their_own_forbidden_list_are_verdict_c_and_its_own_extension_is_b():
    topk = CONTRACTS["topk"]
    sort = "StaticAuditError: X21: agent_solution.py:693: names forbidden operator 'sort' (out.sort)"
    ext = "StaticAuditError: X21: agent_solution.py:572: names forbidden operator 'topk' (_ext.topk)"
    assert on_their_forbidden_list(sort, topk) == "Tensor.sort" and on_their_forbidden_list(ext, topk) == ""
    params = {"batch": 512, "n": 65536, "k": 1, "family": 0}
    assert verdict(result("topk", shape("argmax_64k", params, "forbidden_op", detail=sort))).letter == "c"
    assert verdict(result("topk", shape("argmax_64k", params, "forbidden_op", detail=ext))).letter == "b"


def test_topk_minus_inf_rows_inside_their_k_are_verdict_c_naming_the_unseen_input():
    v = verdict(
        result(
            "topk",
            shape(
                "sampling_vocab_128k",
                {"batch": 256, "n": 128256, "k": 50, "family": 0},
                "runtime_error",
                detail="RuntimeError: unsupported k",
            ),
            shape(
                "neg_inf_1m",
                {"batch": 32, "n": 1048576, "k": 64, "family": 3},
                "incorrect",
                "held_out",
                "X23/X01/X24: 2021 of 2048 selected values differ",
                passed=False,
            ),
        )
    )
    assert v.letter == "c" and v.shape == "neg_inf_1m" and "-inf" in v.unseen_input
    assert v.reasons == ("shapes outside their contract (k in {1, 8, 16, 32, 64}): k = 50",)


def test_kda_nan_on_visible_shapes_is_verdict_c_though_held_out_t_breaks_their_contract():
    visible = {"B": 2, "T": 16384, "H": 32, "K": 128, "V": 128}
    held_out = {"B": 2, "T": 10000, "H": 32, "K": 128, "V": 128}
    assert_t = "AssertionError: at agent_solution.py:189: assert T % BT == 0"
    v = verdict(result("kda", nan("b2_t16k_h32", visible), crash("b2_t10000_h32", held_out, "held_out", assert_t)))
    assert v.letter == "c" and v.shape == "b2_t16k_h32" and "strong decays" in v.unseen_input
    only_t = verdict(
        result("kda", shape("b2_t16k_h32", visible), crash("b2_t10000_h32", held_out, "held_out", assert_t))
    )
    assert only_t.letter == "b" and only_t.reasons == ("shapes outside their contract (T a multiple of 64): T = 10000",)


def test_paged_nan_at_groups_4_and_8_is_c_and_a_group_of_7_alone_is_b():
    g8 = {"B": 16, "Hkv": 8, "G": 8, "D": 128, "L": 8192, "edges": 0}
    g7 = {"B": 24, "Hkv": 4, "G": 7, "D": 128, "L": 3000, "edges": 1}
    arange = "CompilationError: at 29:11: arange's range must be a power of 2"
    glm = verdict(
        result("paged_attention", nan("llama3_70b_b16_8k", g8), crash("qwen2_7b_g7_edges", g7, "held_out", arange))
    )
    assert glm.letter == "c" and glm.shape == "llama3_70b_b16_8k" and "NaN" in glm.error
    longcat = verdict(
        result("paged_attention", shape("llama3_70b_b16_8k", g8), crash("qwen2_7b_g7_edges", g7, "held_out", arange))
    )
    assert longcat.letter == "b" and "G in {4, 8}" in longcat.reasons[0]


def test_moe_skewed_routing_failure_is_c_and_an_expert_count_outside_theirs_is_b():
    skewed = {"T": 8192, "topk": 8, "H": 2048, "I": 1024, "E": 64, "routing": 1}
    e96 = {"T": 2048, "topk": 8, "H": 7168, "I": 2048, "E": 96, "routing": 1}
    glm = verdict(result("moe_swiglu", wrong("olmoe_64e", skewed, max_abs=27.4, normwise=1.34)))
    assert glm.letter == "c" and "skewed routing" in glm.unseen_input
    fable = verdict(
        result(
            "moe_swiglu",
            shape("olmoe_64e", skewed),
            wrong("deepseek_v3_ep2_96e", e96, "held_out", max_abs=5.0, normwise=0.9),
        )
    )
    assert fable.letter == "b" and fable.reasons == ("shapes outside their contract (E in {64, 128}): E = 96",)


def test_w4a16_failure_only_at_k_other_than_4096_is_b_and_says_when_their_own_check_failed_it():
    v = verdict(
        result(
            "w4a16_gemm",
            wrong("decode_m1_70b_up", {"M": 1, "N": 28672, "K": 8192}, max_abs=5e3, normwise=5e3),
            shape("prefill_m128_8b_up", {"M": 128, "N": 14336, "K": 4096}),
            correct=False,
        )
    )
    assert v.letter == "b" and v.notes and v.notes[0].startswith("their own check failed this file")


def test_a_file_whose_cutlass_folder_was_not_offered_needs_a_rescore_not_a_pass():
    run_id = "20260716_145802_kinetic-claude_kinetic-0715_1m__01_fp8_gemm"
    fell_back = result("fp8_gemm", shape("square_8192", FP8["square_8192"]), run_id=run_id)
    v = verdict(fell_back)
    assert v.letter == "rescore" and v.reasons[0].startswith(
        "fell back to its Triton path: not the code kernelbench.com timed"
    )
    offered_now = result(
        "fp8_gemm",
        shape("square_8192", FP8["square_8192"]),
        run_id=run_id,
        cutlass="CUTLASS 4.2.0 source tree, offered at ./cutlass, ./cutlass_src, ./cutlass_3.9, "
        "./third_party/cutlass, /tmp/cutlass and CUTLASS_DIR/ROOT/PATH/HOME/INCLUDE",
    )
    assert verdict(offered_now).letter == "a"


# ---- their numbers beside ours ----


def test_their_moe_fraction_is_recomputed_with_our_top_k_work_formula_and_their_peaks_named():
    from harnesses.kernelbench.their_numbers import their_numbers

    data = result("moe_swiglu", shape("qwen3_235b_balanced", {"E": 128, "topk": 8, "routing": 0}))
    data["agent"]["published"].update(peak_fraction=0.052, elapsed_seconds=3250, output_tokens=None)
    data.update(
        score={"fraction": 0.334},
        hardware={"peak": {"label": "H100 SXM", "bandwidth_gbps": 3350, "tflops": {"bf16": 989.4}}},
    )
    numbers = their_numbers(data)
    # composer-2.5-fast's moe file: their 0.052 of 756 bf16 TFLOPS counted T_total, not T_total * top-k, rows
    assert numbers.their_fraction_our_formula == pytest.approx(0.052 * (8 * 4 * 8) ** (1 / 3))
    assert (
        numbers.their_peak == "756 bf16 TFLOPS (H100 PCIe)"
        and numbers.our_peak == "989 bf16 TFLOPS / 3,350 GB/s (H100 SXM)"
    )
    assert "omits the top-k factor" in numbers.formula_note and numbers.our_fraction == 0.334
    assert (numbers.agent_elapsed_s, numbers.agent_output_tokens, numbers.agent_cost) == (3250, None, "not published")
    paged = their_numbers(result("paged_attention", shape("x", {"G": 4, "D": 128})))
    assert (
        paged.their_fraction_our_formula is None
        and paged.formula_note == ""
        and paged.their_peak == "2,039 GB/s (H100 PCIe)"
    )


def test_a_near_miss_whose_statistics_cannot_show_their_tolerance_is_c_and_says_their_check_might_pass_it():
    # paged grok-4.5, property_0: 10 of 376832 elements beyond ours, normwise 0.00286, max errors above 0.02
    g4 = {"B": 7, "Hkv": 2, "G": 4, "D": 128, "L": 1400, "edges": 1}
    grok = shape(
        "property_0",
        g4,
        "incorrect",
        "property",
        "X23/X01/X24: 10 of 376832 elements",
        passed=False,
        bad_elements=10,
        elements=376832,
        normwise_err=0.00286,
        nonfinite_elements=0,
        max_abs_err=0.031,
        max_rel_err=0.9,
    )
    v = verdict(result("paged_attention", shape("llama3_8b_b32_4k", dict(g4, L=4096)), grok))
    assert v.letter == "c" and v.shape == "property_0"
    assert any("their check might pass it" in note for note in v.notes)
    within = dict(grok, check=dict(grok["check"], max_rel_err=0.015))  # every element within rtol 0.02 alone
    assert verdict(result("paged_attention", within)).letter == "b"


@pytest.mark.parametrize(
    "status, detail, letter",
    [
        ("timeout", "timeout: no result within 180 s; process group killed", "c"),  # kda gemini-3.5-flash
        ("runtime_error", "AcceleratorError: CUDA error: an illegal memory access was encountered", "c"),
        ("integrity", "X10: work on other streams outlived the timed stream by 121 us per call", "b"),  # our rule only
        ("rejected", "fraction 1.3 above the peak", "b"),
    ],
)
def test_each_remaining_class_on_a_shape_inside_their_contract(status, detail, letter):
    inside = {"B": 32, "Hkv": 8, "G": 4, "D": 128, "L": 4096, "edges": 0}
    v = verdict(result("paged_attention", shape("llama3_8b_b32_4k", inside, status, detail=detail)))
    assert v.letter == letter
    if letter == "c":
        assert v.shape == "llama3_8b_b32_4k" and v.error == detail
    else:
        assert v.reasons and v.reasons[0].endswith("llama3_8b_b32_4k")


def test_a_failed_import_has_no_shape_inside_their_contract_to_pass_and_is_c():
    failed = result("w4a16_gemm", status="import_error")
    failed["systems"][0]["import_detail"] = "RuntimeError: fatal error: cutlass/cutlass.h: No such file or directory"
    v = verdict(failed)
    assert v.letter == "c" and v.shape == "(import)" and "cutlass.h" in v.error
