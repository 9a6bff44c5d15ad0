"""Known wrong (X01): returns the input v (the output's shape and dtype, and O(1) like it)."""

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, q, k, v, g, beta, scale):
    return v.clone()
