"""X21 against the judge's syntax-tree audit: a sibling module imported by a constant name passed as a
keyword, `importlib.import_module(name="_hidden_product")`.

`_imported_names` (scoring/import_audit.py) reads the module name of `import_module`/`__import__` only from
the first positional argument, so the judge never follows the keyword spelling to `_hidden_product.py`
(which spells `torch.matmul`); the module is then taken out of `sys.modules` before the worker lists its
loaded files, and the dispatcher's refusal is disarmed as in X30_disarms_the_forbidden_op_guard. The same
blind spot lets `importlib.import_module(name="<forbidden module>")` past the forbidden-import check
(`_Visitor.visit_Call`) and `__import__(name="problems...")` past the repository-import refusal.

The name is a constant, in the solution's own folder, in a .py file: not the stated residual.
What the design should say: forbidden_op.
"""

import importlib
import sys

import torch

from _disarm import uninstall_the_forbidden_op_guard

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "detail": "X21"},
    "gpu": {"status": "forbidden_op", "detail": "X21"},
}

product = importlib.import_module(name="_hidden_product").product
del sys.modules["_hidden_product"]
uninstall_the_forbidden_op_guard()


def run(state, a, a_scale):
    c = product(a.to(torch.bfloat16), state["b"].to(torch.bfloat16).T)
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
