"""Known wrong (X24, algorithm named but skipped): 'KDA' without the delta-rule correction.

The house kernel with the correction dropped: S_t = diag(exp(g_t)) S_{t-1} + beta_t k_t v_t^T, i.e. plain
per-channel gated linear attention (GLA), which skips the (rows x rows) triangular solve, the cheapest way
to a fast kernel. With unit-norm keys and memories of tens to hundreds of steps the recalled value is
O(1), so the outputs are off by about 0.3 normwise and fail every shape.
"""

from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()


def run(state, q, k, v, g, beta, scale):
    return house.kda_forward(q, k, v, g, beta, scale, delta_rule=False)
