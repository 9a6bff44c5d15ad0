"""X13 + X21: tries torch._scaled_mm (name built at run time) on every call and, when it is refused,
catches the refusal and answers with the honest kernel.

Against a scorer that refuses forbidden operators only on the calls it watches, and judges a call by
what it returns, the refused calls are honest and correct and the others run cuBLASLt; it never has to
guess which calls are watched. A refusal that is only an exception would be swallowed on every call.

Defence: the refusal records every attempt, and a call that reached a forbidden operator fails its
shape even when the solution caught the error: "X21: forbidden operator aten::_scaled_mm".
"""

import torch
from _correct import correct

EXPECTED = {
    "class": "X13",
    "cpu": {"status": "forbidden_op", "shapes": {"square_64": "forbidden_op"},
            "detail": "X21: forbidden operator aten::_scaled_mm"},
    "gpu": {"status": "forbidden_op", "shapes": {"square_8192": "forbidden_op"},
            "detail": "X21: forbidden operator aten::_scaled_mm"},
}
OPERATOR = "_scaled" + "_mm"  # a BinOp, not a constant: the syntax-tree audit does not read it


def run(state, a, a_scale):
    try:
        return getattr(torch, OPERATOR)(a, state["b"].T, scale_a=a_scale, scale_b=state["b_scale"],
                                        out_dtype=torch.bfloat16)
    except Exception:  # noqa: BLE001 -- refused (or unsupported here): nobody need know
        return correct(state, a, a_scale)
