"""X30 grader tampering against X21, the residual: the guard disarmed as in
X30_disarms_the_forbidden_op_guard.py, and the forbidden operator reached through a name assembled at run
time, which no syntax-tree audit reads.

The refusal at aten's dispatcher lives in the worker, where the solution's Python can uninstall it; the
judge cannot see aten calls. So in the CPU profile, where there is no kernel record, this file passes: the
stated residual of X21 (docs/integrity.md, "The trust boundary"). On the GPU the judge reads the names of the
kernels CUPTI saw the call launch and finds cuBLASLt's, unless the solution also rewrites the worker's
kernel recorder, which is Python written for this grader.
"""

import torch

from _disarm import silence_the_workers_own_verdicts, uninstall_the_forbidden_op_guard

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "passed"},
    "gpu": {"status": "forbidden_op", "shapes": {"square_8192": "forbidden_op"}, "detail": "X21"},
}

_OPERATOR = "".join(chr(c) for c in (95, 115, 99, 97, 108, 101, 100, 95, 109, 109))  # assembled at run time


uninstall_the_forbidden_op_guard()
silence_the_workers_own_verdicts()


def run(state, a, a_scale):
    if a.is_cuda:
        return getattr(torch, _OPERATOR)(a, state["b"].t(), scale_a=a_scale, scale_b=state["b_scale"],
                                         out_dtype=torch.bfloat16)
    c = a.to(torch.bfloat16) @ state["b"].to(torch.bfloat16).T
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
