"""Known wrong: unpacks the nibbles in the opposite order (k % 8 == 0 in the highest nibble, as some
AWQ kernels' interleaved orders would put it). Same bytes, same speed, permuted weight rows: wrong.
"""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def _reverse_nibbles(qweight):
    shifts = 4 * torch.arange(8, device=qweight.device, dtype=torch.int64)
    words = qweight.to(torch.int64) & 0xFFFFFFFF
    nibbles = (words[:, None, :] >> shifts[None, :, None]) & 0xF
    reversed_words = (nibbles.flip(1) << shifts[None, :, None]).sum(dim=1)
    return torch.where(reversed_words >= 2**31, reversed_words - 2**32, reversed_words).to(torch.int32)


def prepare(qweight, scales, zeros):
    # 'prepare' re-lays the words as the misreading kernel would read them; the per-call path is the house's.
    return house.prepare(_reverse_nibbles(qweight), scales, zeros)


def run(state, x):
    return house.run(state, x)
