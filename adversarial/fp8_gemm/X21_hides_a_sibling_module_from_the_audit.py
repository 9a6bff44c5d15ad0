"""X21 against the judge's syntax-tree audit: the forbidden operator named literally, in a sibling module
the worker does not report.

The judge audits the solution's file and "the files of its folder the worker says it loaded"
(scoring/judge/process.py, audit_solution_source); the list is `loaded_files`, read by the worker from
`sys.modules` after the import (scoring/worker/server.py). The docstring calls it "a claim that can only
add files", but a claim can leave files out as easily: this solution imports `_hidden_product.py` (which
spells `torch.matmul`), keeps the function, and deletes the module from `sys.modules` before the worker
lists it. The refusal at aten's dispatcher is disarmed as in X30_disarms_the_forbidden_op_guard.py.

Unlike X30_disarms_the_guard_and_hides_the_name.py (the stated residual: a name assembled at run time,
which no syntax-tree audit reads) the name here is a literal in the solution's own folder, which the audit
exists to read. What the design should say: the audit reads the folder's files (every importable file in
it: .py, and .pyc/.so refused or audited), not the worker's list: forbidden_op.
"""

import sys

import torch

from _disarm import uninstall_the_forbidden_op_guard
from _hidden_product import product

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "detail": "X21"},
    "gpu": {"status": "forbidden_op", "detail": "X21"},
}

del sys.modules["_hidden_product"]
uninstall_the_forbidden_op_guard()


def run(state, a, a_scale):
    c = product(a.to(torch.bfloat16), state["b"].to(torch.bfloat16).T)
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
