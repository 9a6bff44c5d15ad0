"""X21 against the judge's syntax-tree audit: a sibling module run by a constant module name with
`runpy.run_module("_hidden_product")`.

`_imported_names` (scoring/import_audit.py) knows `import`, `from ... import`, `import_module` and
`__import__`; `runpy.run_module` (like `pkgutil.resolve_name("mod:attr")`, `pydoc.locate`, a pickle's global)
imports by a constant name it does not read, and `_named_files` follows only strings ending in ".py".
run_module never puts the module in `sys.modules`, so the worker's `loaded_files` does not name it either.
The dispatcher's refusal is disarmed as in X30_disarms_the_forbidden_op_guard.

The name is a constant, in the solution's own folder, in a .py file: not the stated residual.
What the design should say: forbidden_op.
"""

import runpy

import torch

from _disarm import uninstall_the_forbidden_op_guard

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "detail": "X21"},
    "gpu": {"status": "forbidden_op", "detail": "X21"},
}

product = runpy.run_module("_hidden_product")["product"]
uninstall_the_forbidden_op_guard()


def run(state, a, a_scale):
    c = product(a.to(torch.bfloat16), state["b"].to(torch.bfloat16).T)
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
