"""Robustness: an exception on one shape is that shape's runtime_error; the other shapes still pass."""

from _correct import correct

EXPECTED = {
    "class": None,
    "cpu": {"status": "runtime_error", "shapes": {"decode_m4": "runtime_error", "square_64": "passed"},
            "detail": "boom on decode"},
    "gpu": {"status": "runtime_error", "shapes": {"decode_m16": "runtime_error", "square_8192": "passed"},
            "detail": "boom on decode"},
}


def run(state, a, a_scale):
    if a.shape[0] <= 16:  # decode_m4 on the CPU profile, decode_m16 on the GPU
        raise RuntimeError("boom on decode")
    return correct(state, a, a_scale)
