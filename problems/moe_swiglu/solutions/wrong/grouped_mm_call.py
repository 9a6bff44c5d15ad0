"""Known wrong (X21, vendor library call): the library line's torch._grouped_mm under the solution's name.

The run-time dispatch mode sees aten::_grouped_mm whatever the spelling, so this is refused.
"""

import torch

EXPECTED = {"cpu": "forbidden_op", "gpu": "forbidden_op"}


def run(state, x, offsets):
    w = torch.cat([state["w_gate"], state["w_up"]], dim=2)
    h = torch._grouped_mm(x, w, offs=offsets[1:])
    I = state["w_gate"].shape[2]
    return torch.nn.functional.silu(h[:, :I]) * h[:, I:]
