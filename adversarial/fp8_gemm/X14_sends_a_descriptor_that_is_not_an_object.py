"""X14/X32 through the fields of a message the judge reads without checking their type: the worker's
"queued" message carries `output` as a JSON list instead of an object.

scoring/wire.py checks that a line is a JSON object with a string "event"; the fields inside are read as
they come. `WorkerLink.call` (scoring/judge/link.py) hands `queued["output"]` to `check_descriptor`
(scoring/shared_tensors.py), which calls `desc.get(...)`: on a list that is an AttributeError, which no
handler on the way classifies, so it reaches the judge's catch-all (scoring/judge/process.py) and the shape
is recorded as "runtime_error: the judge failed", a failure the judge blames on itself, and the judge
process exits for a fresh one. The same happens with a "queued" without `output`, a "prepare_done" whose
`prepare_ms` is not a number (max() of null and a float) or whose `launch_names` holds a list, a
"shape_end_done" without `kernel_record`, or an audited "done" whose `audit_profile` is not an object.
Round 1's X32_sends_deeply_nested_json.py fixed this for a line the parser cannot read, not for a line
whose fields are the wrong shape.

What the design should say: a message whose fields are not what the judge asked for is the worker's broken
channel, like a malformed line: integrity (X14: malformed message), never "the judge failed".
"""

import sys

from _correct import correct

EXPECTED = {
    "class": "X14",
    "cpu": {"status": "integrity", "shapes": {"square_64": "integrity"}, "detail": "X14"},
    "gpu": {"status": "integrity", "shapes": {"square_8192": "integrity"}, "detail": "X14"},
}

_server = sys.modules.get("scoring.worker.server")
if _server is not None:
    _describe = _server.describe_output
    _server.describe_output = lambda out, mailbox: [_describe(out, mailbox)]


def run(state, a, a_scale):
    return correct(state, a, a_scale)
