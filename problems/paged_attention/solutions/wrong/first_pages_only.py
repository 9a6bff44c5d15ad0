"""Known wrong (X22 skipped work): attends to only the first half of each sequence's pages, halving the
bytes read (the 'reads part of the cache' shortcut). Long contexts make every such output wrong.
"""

import torch
from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()
PAGE = house.PAGE_SIZE


def run(state, q, block_table, seq_lens):
    half_pages = (seq_lens + 2 * PAGE - 1) // (2 * PAGE)  # ceil(pages / 2)
    truncated = torch.minimum(seq_lens, half_pages * PAGE).to(torch.int32)
    return house.paged_decode(q, state["k_cache"], state["v_cache"], block_table, truncated)
