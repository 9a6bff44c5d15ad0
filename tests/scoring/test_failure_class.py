"""Failure classes: each class from the statuses and check statistics that define it."""

import subprocess
import sys
from pathlib import Path

from scoring.failure_class import NEAR_MISS_MAX_SHARE, classify, headline, reread_failure

REPO = Path(__file__).resolve().parents[2]

BOUND = 5e-3


def shape(name, status="passed", shape_set="visible", detail="", **check):
    return {"name": name, "shape_set": shape_set, "status": status, "detail": detail, "check": check}


def system(*shapes, status="incorrect", audits=(), import_detail=""):
    return {"status": status, "shapes": list(shapes), "audits": list(audits), "import_detail": import_detail}


def test_a_passing_system_has_no_failure():
    assert classify(system(shape("a"), status="passed"), BOUND) is None


def test_a_few_elements_beyond_the_bound_with_the_normwise_error_within_is_a_near_miss():
    elements = 10**7
    few = shape(
        "big",
        "incorrect",
        bad_elements=int(NEAR_MISS_MAX_SHARE * elements),
        elements=elements,
        normwise_err=BOUND / 2,
        nonfinite_elements=0,
        detail="300 of ...",
    )
    failure = classify(system(few), BOUND)
    assert failure["class"] == "near_miss" and failure["shapes"] == ["big"] and failure["detail"] == "300 of ..."
    many = dict(few, check=dict(few["check"], bad_elements=int(NEAR_MISS_MAX_SHARE * elements) + 1))
    assert classify(system(many), BOUND)["class"] == "wrong_output"
    off_normwise = dict(few, check=dict(few["check"], normwise_err=BOUND * 2))
    assert classify(system(off_normwise), BOUND)["class"] == "wrong_output"
    no_size = dict(few, check=dict(few["check"], elements=0))  # a result written before `elements` existed
    assert classify(system(no_size), BOUND)["class"] == "wrong_output"


def test_nan_output_and_unseen_only_failures():
    nan = shape(
        "prop", "incorrect", "property", nonfinite_elements=3, elements=100, bad_elements=3, normwise_err=float("inf")
    )
    failure = classify(system(shape("vis"), nan), BOUND)
    assert failure["class"] == "nan_inf" and failure["unseen_only"] is True
    visible_fails_too = classify(system(dict(nan, shape_set="visible")), BOUND)
    assert visible_fails_too["unseen_only"] is False


def test_the_most_severe_class_names_the_system_and_every_class_is_listed():
    crashed = shape("a", "runtime_error", detail="CUDA error")
    wrong = shape("b", "incorrect", bad_elements=50, elements=100, normwise_err=1.0, nonfinite_elements=0)
    forbidden = shape("c", "forbidden_op", detail="X21: aten::mm")
    # A silent wrong answer outranks a loud crash; a rule verdict outranks both.
    assert classify(system(crashed, wrong), BOUND)["class"] == "wrong_output"
    assert classify(system(crashed, wrong), BOUND)["classes"] == {"wrong_output": ["b"], "runtime_error": ["a"]}
    assert classify(system(crashed, wrong, forbidden), BOUND)["class"] == "forbidden_op"
    build = system(
        shape("a", "import_error", detail="fatal error: cutlass/cutlass.h: No such file"), status="import_error"
    )
    assert classify(build, BOUND) == {
        "class": "build_or_import",
        "label": "build or import failure",
        "shapes": ["a"],
        "unseen_only": False,
        "detail": "fatal error: cutlass/cutlass.h: No such file",
        "classes": {"build_or_import": ["a"]},
    }


# Fixtures shaped like the committed results that the fixed order misclassified (issue 33).
def near(name, shape_set="visible"):
    return shape(
        name,
        "incorrect",
        shape_set,
        detail=f"{name}: 22 of 67108864 elements",
        bad_elements=22,
        elements=67108864,
        normwise_err=0.00264,
        nonfinite_elements=0,
    )


def wrong(name, shape_set="visible", normwise=1.37):
    return shape(
        name,
        "incorrect",
        shape_set,
        detail=f"{name}: normwise error {normwise}",
        bad_elements=46492381,
        elements=50688000,
        normwise_err=normwise,
        nonfinite_elements=0,
    )


def nan(name, shape_set="visible"):
    return shape(
        name,
        "incorrect",
        shape_set,
        detail=f"{name}: NaN/Inf elements",
        bad_elements=8619008,
        elements=21413888,
        normwise_err=float("inf"),
        nonfinite_elements=8619008,
    )


def crash(name, shape_set, detail="AssertionError: at agent_solution.py:189: assert T % BT == 0"):
    return shape(name, "runtime_error", shape_set, detail=detail)


def test_kimi_fp8_is_headlined_by_its_wrong_decode_shape_not_by_its_near_misses():
    # results/h100_sxm fp8_gemm kimi-k2.7-code: near misses on the big shapes, normwise 0.377 on decode shapes
    kimi = system(
        near("square_8192"),
        wrong("decode_m16", normwise=0.377),
        near("mlp_up_rect"),
        wrong("decode_m64_7168", "held_out", 0.377),
        near("mlp_down_rect", "held_out"),
    )
    failure = classify(kimi, BOUND)
    assert failure["class"] == "wrong_output" and failure["shapes"] == ["decode_m16", "decode_m64_7168"]
    assert list(failure["classes"]) == ["wrong_output", "near_miss"]
    assert failure["detail"].startswith("decode_m16")


def test_glm_moe_is_headlined_wrong_output_where_eight_of_nine_failing_shapes_are_wrong():
    # results/h200_sxm moe_swiglu glm-5.2: wrong output on 3 visible, 3 held-out, 2 property; NaN on property_2
    glm = system(
        wrong("qwen3_30b_a3b"),
        shape("qwen3_235b_balanced"),
        wrong("minimax_m2_256e"),
        wrong("olmoe_64e"),
        *(wrong(n, "held_out") for n in ("deepseek_v2_160e", "v2_lite_hot_expert", "deepseek_v3_ep2_96e")),
        wrong("property_0", "property"),
        wrong("property_1", "property"),
        nan("property_2", "property"),
    )
    failure = classify(glm, BOUND)
    assert failure["class"] == "wrong_output" and len(failure["shapes"]) == 8
    assert failure["classes"]["nan_inf"] == ["property_2"]


def test_kda_files_nan_on_every_visible_shape_are_not_headlined_by_the_unseen_assert():
    # results/h100_sxm kda claude-opus-4-8 (and five like it): NaN on the visible T (multiples of 64),
    # `assert T % BT == 0` on held-out T = 10000, 20001, 3000 and the property shapes
    kda = system(
        *(nan(n) for n in ("b2_t16k_h32", "b8_t4k_h32", "b1_t32k_h16", "b4_t8k_h16")),
        *(crash(n, "held_out") for n in ("b2_t10000_h32", "b1_t20001_h24", "b3_t3000_h16")),
        crash("property_0", "property"),
    )
    failure = classify(kda, BOUND)
    assert failure["class"] == "nan_inf" and failure["unseen_only"] is False
    assert failure["classes"]["runtime_error"] == ["b1_t20001_h24", "b2_t10000_h32", "b3_t3000_h16", "property_0"]


def test_glm_paged_nan_at_group_sizes_4_and_8_is_not_hidden_by_the_compile_error_at_7():
    paged = system(
        nan("llama3_8b_b32_4k"),
        nan("llama3_70b_b16_8k"),
        nan("llama2_7b_mha_b8_2k"),
        crash("qwen2_7b_g7_edges", "held_out", "CompilationError: at 29:11: arange's range must be a power of 2"),
        nan("d64_g2_edges", "held_out"),
        nan("long_32k_b4", "held_out"),
    )
    failure = classify(paged, BOUND)
    assert failure["class"] == "nan_inf" and "qwen2_7b_g7_edges" not in failure["shapes"]
    assert failure["classes"]["runtime_error"] == ["qwen2_7b_g7_edges"]


def test_within_a_tier_the_class_seen_on_a_visible_shape_wins():
    many_unseen_nan = [nan(f"property_{i}", "property") for i in range(3)]
    failure = classify(system(wrong("visible_one"), *many_unseen_nan), BOUND)
    assert failure["class"] == "wrong_output" and list(failure["classes"]) == ["wrong_output", "nan_inf"]
    # all unseen: the class of more shapes wins
    failure = classify(system(shape("v"), wrong("h", "held_out"), *many_unseen_nan), BOUND)
    assert failure["class"] == "nan_inf" and failure["unseen_only"] is True


def test_an_audit_verdict_alone_names_the_system_and_a_line_that_never_ran_has_none():
    audit = {"id": "tensor_precision", "classes": ["X20", "X22"], "outcome": "failed (X20: bf16 path)"}
    failure = classify(system(shape("a"), status="integrity", audits=[audit]), BOUND)
    assert failure["class"] == "integrity" and failure["detail"] == "failed (X20: bf16 path)"
    assert classify(system(shape("a", "not_available"), status="not_available"), BOUND) is None


# Triton's CompilationError as the worker records it: a location, the quoted source, a caret, then the reason
# (kimi-k2.7-code's paged-attention file on Triton 3.6), or no reason and the traceback (deepseek-v4-pro's).
COMPILER_DETAIL = (
    "CompilationError: at 73:37:\n        l = l * alpha + tl.sum(probs, axis=1)\n"
    "        acc = acc * alpha[:, None] + tl.dot(probs, v)\n                                     ^\n"
    "Both operands must be same dtype. Got fp32 and bf16\n"
    "  File \"/x/triton/runtime/jit.py\", line 370\n"
)
SILENT_COMPILER_DETAIL = (
    "CompilationError: at 40:12:\n"
    "    q_all = tl.zeros((GROUP_SIZE, HEAD_DIM), dtype=tl.float32)\n"
    "            ^\n  File \"/x/triton/runtime/jit.py\", line 370, in <lambda>\n"
)
REASON = "Both operands must be same dtype. Got fp32 and bf16"


def test_a_compiler_errors_headline_carries_its_reason_not_only_its_location():
    assert headline(COMPILER_DETAIL) == f"CompilationError: at 73:37: {REASON}"
    assert headline(SILENT_COMPILER_DETAIL) == "CompilationError: at 40:12:"  # no reason given: no traceback line
    assert headline("RuntimeError: unsupported k\n  File ...") == "RuntimeError: unsupported k"
    assert headline("") == ""
    traceback_after = "ValueError: bad input:\n  File \"x.py\", line 3, in f\n    g(x)\n    ^^^^\n    h(y)\n"
    assert headline(traceback_after) == "ValueError: bad input:"  # a traceback's carets are not a message's
    failure = classify(system(shape("a", "runtime_error", detail=COMPILER_DETAIL)), BOUND)
    assert failure["detail"].endswith(REASON)


# A bare `assert` in an agent's file, as the worker records it (claude-opus-4-8's KDA file at T = 10000).
BARE_ASSERT_DETAIL = (
    "AssertionError: \n"
    '  File "/k/kda/run/solution.py", line 88, in run\n    return model(q, k, v, g, beta)\n'
    "           ^^^^^^^^^^^^^^^^^^^^^^^\n"
    '  File "/k/kda/run/agent_solution.py", line 189, in _kda_forward\n    assert T % BT == 0\n'
    "           ^^^^^^^^^^^\nAssertionError\n"
)


def test_an_exception_without_a_message_is_told_by_where_it_was_raised():
    assert headline(BARE_ASSERT_DETAIL) == "AssertionError: at agent_solution.py:189: assert T % BT == 0"
    assert headline("AssertionError: \n") == "AssertionError:"  # no traceback: nothing to add
    assert headline('KeyError: 50\n  File "a.py", line 3, in f\n    x[50]\n') == "KeyError: 50"  # a message
    assert headline(SILENT_COMPILER_DETAIL) == "CompilationError: at 40:12:"  # a location, not an empty message
    failure = classify(system(shape("a", "runtime_error", detail=BARE_ASSERT_DETAIL)), BOUND)
    assert failure["detail"].endswith("assert T % BT == 0")


def test_a_recorded_failure_is_read_again_only_where_the_new_headline_carries_the_old_one_further():
    failed = system(shape("a", "runtime_error", detail=BARE_ASSERT_DETAIL), status="runtime_error")
    recorded = {
        "class": "runtime_error",
        "label": "runtime error",
        "shapes": ["a"],
        "unseen_only": False,
        "detail": "AssertionError:",
    }
    assert reread_failure(dict(failed, failure=recorded), BOUND)["detail"].endswith("assert T % BT == 0")
    other = dict(recorded, detail="written by hand")  # not a prefix of what the shapes say: kept
    assert reread_failure(dict(failed, failure=other), BOUND) == dict(other, classes={"runtime_error": ["a"]})
    elsewhere = dict(recorded, **{"class": "timeout"})  # the shapes tell another class: theirs, the record named
    again = reread_failure(dict(failed, failure=elsewhere), BOUND)
    assert again["class"] == "runtime_error" and again["recorded_class"] == "timeout"
    assert (
        reread_failure(dict(failed, failure=None), BOUND) is None
        and reread_failure({"failure": recorded}, BOUND) == recorded
    )


def test_the_worker_records_what_a_compiler_error_was_raised_from():
    """A real Triton error (the interpreter's, on the CPU) raised from another: the cause is recorded (on the
    GPU a CompilationError's own message can be empty, and the cause line then follows its caret)."""
    program = """
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from scoring.worker.failures import status_of_exception
from scoring.failure_class import headline

@triton.jit
def kernel(x, GROUP: tl.constexpr):
    tl.store(x + tl.arange(0, 16), tl.sum(tl.zeros((GROUP, 16), dtype=tl.float32), 0))

try:
    kernel[(1,)](torch.zeros(16), 7)
except Exception as exc:
    status, detail, fresh = status_of_exception(exc)
    print(status, fresh)
    print(headline(detail))
    print(detail.replace("\\n", " | "))
"""
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    status_line, headline_line, detail = done.stdout.strip().splitlines()[:3]
    assert status_line == "runtime_error False"  # raised on the host: the worker goes on (CallServer.recover)
    assert "Shape element 0 must be a power of 2" in headline_line
    assert "caused by ValueError: Shape element 0 must be a power of 2" in detail
