"""Known wrong (X23): tuned only for the shapes in the prompt; elsewhere it drops the K tail.

For a shape it has seen it calls the house kernel; for any other it rounds K down to a multiple of 64
(the kind of shortcut a kernel specialised to its visible shapes takes). It passes every visible shape
and fails held-out shapes (K = 4112 on the GPU, 80 on the CPU profile) and property shapes whose K is
not a multiple of 64.
"""

from _house import load_house

EXPECTED = {"cpu": "incorrect", "gpu": "incorrect"}
house = load_house()
SEEN_SHAPES = {(8192, 8192, 8192), (6144, 6144, 6000), (16, 8192, 8192), (8192, 28672, 4096),  # GPU visible
               (64, 64, 64), (96, 80, 112), (4, 128, 256)}  # CPU-profile visible


def run(state, a, a_scale):
    M, K = a.shape
    b = state["b"]
    if (M, b.shape[0], K) in SEEN_SHAPES:
        return house.fp8_gemm(a, b, a_scale, state["b_scale"])
    k_kept = K - K % 64 if K > 64 else K
    return house.fp8_gemm(a[:, :k_kept].contiguous(), b[:, :k_kept].contiguous(), a_scale, state["b_scale"])
