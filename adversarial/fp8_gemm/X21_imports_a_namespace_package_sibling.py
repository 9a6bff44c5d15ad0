"""X21 against the judge's syntax-tree audit: the forbidden operator named literally in a module of a
folder of the solution's own that has no __init__.py (a namespace package, PEP 420).

`sibling_imports` (scoring/import_audit.py) follows `import name` to `name.py` or, only when
`name/__init__.py` exists, to every file of `name/`; a folder without one is a package Python imports all
the same, and the judge follows nothing into it. The worker's `loaded_files` would name the module, so it
is taken out of `sys.modules` before the worker lists them (as in X21_hides_a_sibling_module_from_the_audit),
and the dispatcher's refusal is disarmed as in X30_disarms_the_forbidden_op_guard.

The name is a constant, in the solution's own folder, in a .py file: not the stated residual.
What the design should say: forbidden_op (the judge audits every .py file of the folder, or follows a
package folder whether or not it has an __init__.py).
"""

import sys

import torch

from _disarm import uninstall_the_forbidden_op_guard
from _ns_hidden.product import product

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "detail": "X21"},
    "gpu": {"status": "forbidden_op", "detail": "X21"},
}

for _name in [n for n in sys.modules if n == "_ns_hidden" or n.startswith("_ns_hidden.")]:
    del sys.modules[_name]
uninstall_the_forbidden_op_guard()


def run(state, a, a_scale):
    c = product(a.to(torch.bfloat16), state["b"].to(torch.bfloat16).T)
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
