"""Known wrong (X21): exp(log_softmax) through a getattr alias of the Tensor method (no 'softmax(' in the
source an AST or grep would match). The dispatch mode sees aten::_log_softmax whatever the spelling."""

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}
_method = "log_" + "soft" + "max"


def run(state, x):
    return getattr(x.double(), _method)(-1).exp().float()
