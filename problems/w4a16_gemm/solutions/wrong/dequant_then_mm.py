"""Known wrong (X21): dequantises the whole weight to bf16, then a dense torch.mm (cuBLAS). The numbers
are right; the dense GEMM is forbidden on the per-call path (the dispatch mode refuses aten::mm). Done
with a hand-written dense kernel instead, it would pass and be scored against the packed-weight bytes.
"""

import torch

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}
GROUP_SIZE = 128


def run(state, x):
    qweight = state["qweight"]
    shifts = 4 * torch.arange(8, device=qweight.device, dtype=torch.int32)
    q = ((qweight[:, None, :] >> shifts[None, :, None]) & 0xF).reshape(-1, qweight.shape[1])
    w = (q.to(torch.bfloat16) - state["zeros"].repeat_interleave(GROUP_SIZE, 0)) * \
        state["scales"].repeat_interleave(GROUP_SIZE, 0)
    return torch.mm(x, w.to(torch.bfloat16))
