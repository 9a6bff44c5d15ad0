"""X21 against the judge's import-following audit: the forbidden operator named literally in a sibling
module of the solution's folder, loaded by a form of import the judge does not follow.

Round 2 moved the syntax-tree audit into the judge, which reads the solution's file and the modules of its
folder that it imports "by a constant name" (scoring/import_audit.py, `sibling_imports`: `import x`,
`from x import`, `importlib.import_module("x")`, `__import__("x")`), plus the files the worker says it
loaded (its `sys.modules`). This solution runs `_hidden_product.py` (which spells `torch.matmul`) with
`runpy.run_path`: no import statement names it, and runpy leaves nothing in `sys.modules`, so neither the
judge's reading nor the worker's list reaches it. The same holds for `importlib.util.spec_from_file_location`
+ `exec_module` without registering the module, `exec(open(sibling).read())`, a module in a subfolder put on
`sys.path`, or source kept in a file that does not end in `.py`. The refusal at aten's dispatcher is
disarmed as in X30_disarms_the_forbidden_op_guard.py.

What the design should say: the folder's code is what the audit reads, not the import forms it recognises
(every file the solution ships is audited or refused): forbidden_op.
"""

import runpy
from pathlib import Path

import torch

from _disarm import uninstall_the_forbidden_op_guard

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "detail": "X21"},
    "gpu": {"status": "forbidden_op", "detail": "X21"},
}

product = runpy.run_path(str(Path(__file__).with_name("_hidden_product.py")))["product"]
uninstall_the_forbidden_op_guard()


def run(state, a, a_scale):
    c = product(a.to(torch.bfloat16), state["b"].to(torch.bfloat16).T)
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
