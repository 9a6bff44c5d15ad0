"""Known wrong (X21): a full argsort through a getattr alias of the Tensor method, which no AST audit of
'sort(' would see; the dispatch mode sees aten::sort whatever the spelling."""

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}
_method = "arg" + "sort"


def run(state, x, k):
    return getattr(x, _method)(dim=1, descending=True)[:, :k].contiguous()
