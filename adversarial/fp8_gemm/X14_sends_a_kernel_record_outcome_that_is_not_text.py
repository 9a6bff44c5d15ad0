"""X14 nested content of "shape_end_done": a kernel_record that is an object (as MESSAGE_FIELDS asks) with
no "vendor_kernels" key and "outcome": 7.

The judge copies the worker's kernel_record into the shape's result and replaces "vendor_kernels" only when
the key is there (scoring/judge/shapes.py _finish). On the GPU, with every shape passed, the scorer's
run_audits (scoring/audit.py:250) takes `kernel_record.get("vendor_kernels") or kernel_record.get("outcome")`
as the vendor_kernels audit's outcome, and system_status (scoring/result.py:49) calls `.startswith` on it:
AttributeError, the scorer dies without writing a result. With "outcome": "passed" the audit shows the
worker's "passed" instead. Reasoned from source and shown on the scorer's functions
(/tmp/redteam4/kr_crash.py); the CPU profile draws no audited shape, so it is not exercised there.
What the design should say: audits built only from the judge's own verdicts. Now the judge writes every
verdict in the record (scoring/judge/shapes.py judged_kernel_record): a record without kernels can only say
"not verified (the worker recorded no kernels: '7')", always text. The record itself stays the worker's
claim (the stated residual), so the honest computation under it passes, with its vendor audit not verified
(reasoned, not yet run on a GPU)."""

import gc

from _correct import correct

EXPECTED = {
    "class": "X14",
    "cpu": {"not_exercised": "the CPU profile audits no shape: run_audits never reads a shape's kernel_record"},
    "gpu": {"status": "passed"},
}

for obj in gc.get_objects():
    if type(obj).__name__ == "CallServer":
        honest = obj.shape_end

        def shape_end(message, _honest=honest):
            reply = _honest(message)
            reply["kernel_record"] = {"outcome": 7}
            return reply

        obj.shape_end = shape_end


def run(state, a, a_scale):
    return correct(state, a, a_scale)
