"""X21 + robustness: on the shape whose K is not a power of two (k_unaligned_*), reaches torch._scaled_mm
(its name built at run time), swallows the refusal, then raises.

Against a scorer that goes on in the same process after an exception without looking back, the attempt is
lost (the shape reads as a plain runtime error) or, never taken, is charged to the next shape. Defence: when
a shape raises, the worker takes the failed call's attempts before it goes on (Runner.recover): this shape
is forbidden_op, and the next one (decode) passes in the same process.
"""

import torch
from _correct import correct

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "shapes": {"k_unaligned_112": "forbidden_op", "decode_m4": "passed"},
            "detail": "X21: forbidden operator aten::_scaled_mm"},
    "gpu": {"status": "forbidden_op", "shapes": {"k_unaligned_6000": "forbidden_op", "decode_m16": "passed"},
            "detail": "X21: forbidden operator aten::_scaled_mm"},
}
OPERATOR = "_scaled" + "_mm"  # a BinOp, not a constant: the syntax-tree audit does not read it


def run(state, a, a_scale):
    k = a.shape[1]
    if k & (k - 1):
        try:
            getattr(torch, OPERATOR)(a, state["b"].T, scale_a=a_scale, scale_b=state["b_scale"],
                                     out_dtype=torch.bfloat16)
        except Exception:  # noqa: BLE001 -- refused: nobody need know
            pass
        raise RuntimeError("unsupported K")
    return correct(state, a, a_scale)
