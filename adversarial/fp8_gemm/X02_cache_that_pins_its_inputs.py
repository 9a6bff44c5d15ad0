"""X02 result reuse that the allocator cannot give away: outputs cached on the input's storage address,
with the two most recent inputs kept alive so that the next fresh input cannot land at either address.

The judge hands the solution the same shared buffers on every call, refilled with new values (the
inputs live in the judge's memory, scoring/shared_tensors.py), so the second correctness seed already
meets a cached address and its stale output fails the reference.
"""

from _correct import correct

EXPECTED = {
    "class": "X02",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "outside atol+rtol"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "outside atol+rtol"},
}
_cache = {}  # (shape, address) -> (input, output), the two most recent calls' (memory stays bounded)


def run(state, a, a_scale):
    key = (tuple(a.shape), a.data_ptr())
    if key not in _cache:
        # Holding `a` pins its address: a fresh input can only land where an evicted entry's input was.
        _cache[key] = (a, correct(state, a, a_scale))
        while len(_cache) > 2:
            del _cache[next(iter(_cache))]
    return _cache[key][1]
