"""Known wrong: the right k elements in the wrong order (ascending instead of descending).

A kernel that selects but skips the final sort of the k winners; only k = 1 shapes survive it.
"""

from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, x, k):
    return house.topk_indices(x, k).flip(1).contiguous()
