"""X13 + X21: cuBLASLt's FP8 GEMM (torch._scaled_mm) on every call it believes unwatched, the honest
kernel on the others; the operator's name is built at run time, so the syntax-tree audit finds nothing.

It believes a call watched while a Python dispatch mode is active (the old scorer's forbidden-operator
mode, on checked calls only), or when the process looks profiled or audited: "audit_target" in argv,
profiler variables in the environment (CUDA_INJECTION64_PATH, NV_COMPUTE_PROFILER_PERFWORKS_DIR,
NSIGHT*, NV_TPS*), or a profiler's library mapped into /proc/self/maps after the import (ncu's and
nsys's injection libraries, nvperf, libcupti): _watch.py. Against the old scorer, whose timed calls ran
with no dispatch mode and whose counter audit ran in `scoring.audit_target` under ncu, every checked and
audited call was honest and every timed call ran cuBLASLt (0.641 of the roofline against the house
kernel's 0.548 on an H100, README; 0.77 ms against 0.93 ms at 8192^3 when measured for this case), with
nothing refused and no failed audit.

Defence: the forbidden operators are refused for the whole worker at the dispatcher, on every call, so
there is no mode to see and the first unwatched call raises "X21: forbidden operator aten::_scaled_mm".
In the CPU profile too: the refusal replaces the CPU kernel (which exists for float8 in torch 2.13's CPU
build and passes the tolerance there), so the unguarded operator would have passed.
"""

import torch
from _correct import correct
from _watch import dispatch_mode_active, profiled

EXPECTED = {
    "class": "X13",
    "cpu": {"status": "forbidden_op", "shapes": {"square_64": "forbidden_op"},
            "detail": "X21: forbidden operator aten::_scaled_mm"},
    "gpu": {"status": "forbidden_op", "shapes": {"square_8192": "forbidden_op"},
            "detail": "X21: forbidden operator aten::_scaled_mm"},
}
OPERATOR = "".join(("_sca", "led", "_mm"))  # noqa: FLY002 -- assembled, so no syntax tree names it


def run(state, a, a_scale):
    if dispatch_mode_active() or profiled():
        return correct(state, a, a_scale)
    vendor_gemm = getattr(torch, OPERATOR)
    return vendor_gemm(a, state["b"].T, scale_a=a_scale, scale_b=state["b_scale"], out_dtype=torch.bfloat16)
