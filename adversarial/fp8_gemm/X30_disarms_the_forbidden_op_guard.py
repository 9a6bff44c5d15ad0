"""X30 grader tampering against X21: the forbidden-operator refusal is installed in the worker, the process
this file is imported into, and so are the names of the kernels it launched.

At import this module (1) finds the worker's ForbiddenOps object with `gc` and uninstalls its dispatcher
registrations, so aten::matmul has its real kernel back and nothing is recorded in `attempts`, (2) replaces
`scoring.worker.server.audit_files`, where the syntax-tree audit used to run, with one that finds nothing,
and (3) replaces `scoring.vendor_kernels.judge` in the worker with one that says "passed". Then every call is
`torch._scaled_mm` on the GPU (cuBLASLt's fp8 GEMM: fp8 tensor work, so the counter audit's precision check
passes too) and a plain bf16 `@` in the CPU profile, both forbidden for this problem. Before the red team's
round on the judge/worker split it passed every shape in the CPU profile.

The syntax-tree audit now runs in the judge, on the solution's own file whatever the worker says, and the
judge reads the launched kernels' names itself (the worker sends the names, not a verdict): this file names
`torch._scaled_mm`, so it is forbidden_op on every shape. A solution that also hides the name from the
syntax tree is X30_disarms_the_guard_and_hides_the_name.py (the residual, stated in docs/integrity.md)."""

import torch

from _disarm import silence_the_workers_own_verdicts, uninstall_the_forbidden_op_guard

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "shapes": {"square_64": "forbidden_op"}, "detail": "X21"},
    "gpu": {"status": "forbidden_op", "shapes": {"square_8192": "forbidden_op"}, "detail": "X21"},
}


uninstall_the_forbidden_op_guard()
silence_the_workers_own_verdicts()


def run(state, a, a_scale):
    if a.is_cuda:
        return torch._scaled_mm(a, state["b"].t(), scale_a=a_scale, scale_b=state["b_scale"],
                                out_dtype=torch.bfloat16)
    c = a.to(torch.bfloat16) @ state["b"].to(torch.bfloat16).T
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
