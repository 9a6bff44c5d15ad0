"""Known wrong (X01): returns the logits themselves (a copy). Nothing like a probability."""

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}


def run(state, x):
    return x.clone()
