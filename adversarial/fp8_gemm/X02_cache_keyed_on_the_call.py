"""X02 result reuse: outputs cached on the input's shape and storage address.

Fresh inputs for every call often land at a recycled address, so the cache answers with an earlier
call's output, and the checked calls see it. Which check catches it first (the correctness seeds or a
timed call) depends on the allocator, so no detail is required. Should the allocator never recycle one,
the last timed call still reuses the previous call's tensors (X02_cache_that_pins_its_inputs.py shows
that check on its own).
"""

from _correct import correct

EXPECTED = {
    "class": "X02",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}},
}
_cache = {}


def run(state, a, a_scale):
    key = (tuple(a.shape), a.data_ptr())
    if key not in _cache:
        _cache[key] = correct(state, a, a_scale)
    return _cache[key]
