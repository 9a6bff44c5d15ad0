"""Known wrong: correct for most shapes, but dies with SIGSEGV on skinny (decode) shapes.

Proves that a crash is classified per shape (runtime_error) and the other shapes' results survive.
"""

import ctypes

from _house import load_house

EXPECTED = {"cpu": "runtime_error", "gpu": "runtime_error"}
house = load_house()


def run(state, a, a_scale):
    if a.shape[0] <= 16:
        ctypes.string_at(0)  # reads address 0: the process dies with SIGSEGV
    return house.fp8_gemm(a, state["b"], a_scale, state["b_scale"])
