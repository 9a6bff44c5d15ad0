"""X21 against the judge's audit, through the one list of paths it takes from the worker: `loaded_files`.

The judge resolves every path the worker says it loaded before asking whether it lies in the solution's
folder (scoring/judge/process.py, `audit_solution_source`: `Path(str(name)).resolve()`). The worker's
scratch folder is the same folder outside the sandbox, so a path the worker makes there is resolved by the
judge, as root, in the host's mount namespace. This solution names forbidden `torch.matmul` literally (the
audit would say forbidden_op), makes two links in its scratch folder that point at each other, and has
the worker report one of them as a loaded file: Python 3.11's `resolve()` raises RuntimeError ("Symlink
loop"), which nothing in the judge catches before its result is sent, so the judge dies during the import
and the scorer records "import_error: the process ended during import": a build failure instead of the
X21 verdict (a milder status in scoring/result.py STATUS_SEVERITY and failure class build_or_import), the
forbidden operator named nowhere in the result.

What the design should say: the judge acts on no path the worker names (read `loaded_files` as names of
the folder's own files, compared as strings against the folder's listing, or drop the claim: the judge
reads the folder itself); forbidden_op.
"""

import os
import sys
from pathlib import Path

import torch

EXPECTED = {
    "class": "X21",
    "cpu": {"status": "forbidden_op", "detail": "X21"},
    "gpu": {"status": "forbidden_op", "detail": "X21"},
}

_scratch = Path(os.environ.get("TMPDIR", "/tmp"))
_server = sys.modules.get("scoring.worker.server")
if _server is not None:
    try:
        for name, target in (("loop-a.py", "loop-b.py"), ("loop-b.py", "loop-a.py")):
            os.symlink(target, _scratch / name)
    except OSError:
        pass
    _server.CallServer.loaded_files = lambda self: [str(_scratch / "loop-a.py")]


def run(state, a, a_scale):
    c = torch.matmul(a.to(torch.bfloat16), state["b"].to(torch.bfloat16).T)
    return (c * (a_scale * state["b_scale"])).to(torch.bfloat16)
