"""Known wrong (X01): returns the query itself (the output has q's shape and dtype, so it type-checks)."""

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, q, block_table, seq_lens):
    return q.clone()
