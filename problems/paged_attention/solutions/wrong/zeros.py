"""Known wrong (X01): returns zeros of the right shape and dtype. Outputs are O(1), so it fails."""

import torch

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, q, block_table, seq_lens):
    return torch.zeros_like(q)
