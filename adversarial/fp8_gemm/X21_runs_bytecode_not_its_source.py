"""X21 against the judge's syntax-tree audit: the audit reads this file's source, the interpreter runs
other code -- an "unchecked-hash" .pyc (PEP 552) planted beside it in `__pycache__/`.

The worker imports the solution with `importlib.util.spec_from_file_location` (scoring/problem.py,
import_file), whose SourceFileLoader looks for `__pycache__/<stem>.cpython-XY.pyc` first; a hash-based .pyc
whose "check_source" flag is off is used without comparing it with the source at all (CPython's default
`--check-hash-based-pycs default`). The judge audits the .py text (scoring/import_audit.py) and the parent
checks that the text is what "the interpreter would read" (scoring/solution_file.py), but neither looks at
`__pycache__`. The same works for any sibling module the solution imports.

The source below is innocent and wrong (zeros: incorrect). The bytecode, made by `python THIS_FILE --plant`
(outside the scorer: the folder is read-only in the sandbox), uninstalls the dispatcher refusal and
computes the product with `torch.matmul` (forbidden): with it planted, the run passes in the CPU profile
(red team round 3, in a copy of this folder under /tmp). `__pycache__` is ignored by git, so the corpus
run without planting scores the source: incorrect.

What the design should say: the code that runs is the code audited. Now the worker looks for bytecode in an
empty folder of its own (`sys.pycache_prefix`, set before the solution is imported: tests/scoring/
test_trust_boundary.py plants such a .pyc and gets the source's zeros), and the syntax-tree audit refuses a
source that names what decides which bytecode runs, as this one does in `plant`: forbidden_op.
"""

import sys

import torch

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "detail": "bytecode"},
    "gpu": {"status": "forbidden_op", "detail": "bytecode"},
}

HIDDEN = '''
import gc
import torch
for obj in gc.get_objects():
    try:
        if type(obj).__name__ == "ForbiddenOps":
            obj.uninstall()
            obj.attempts.clear()
    except Exception:
        pass
EXPECTED = None
def run(state, a, a_scale):
    c = torch.matmul(a.to(torch.bfloat16), state["b"].to(torch.bfloat16).T)
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
'''


def run(state, a, a_scale):
    return torch.zeros((a.shape[0], state["b"].shape[0]), dtype=torch.bfloat16, device=a.device)


def plant(path: str) -> str:
    import importlib.util
    from importlib._bootstrap_external import _code_to_hash_pyc

    source = open(path, "rb").read()
    code = compile(HIDDEN, path, "exec")
    pyc = importlib.util.cache_from_source(path)
    import os
    os.makedirs(os.path.dirname(pyc), exist_ok=True)
    with open(pyc, "wb") as f:
        f.write(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))
    return pyc


if __name__ == "__main__" and "--plant" in sys.argv:
    print(plant(__file__))
