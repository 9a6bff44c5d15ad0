"""X02 result reuse that the allocator cannot give away: outputs cached on the input's storage address,
with the input itself kept alive so that no later fresh input can land at that address.

Every correctness seed and every timed call then gets a new address and a correct answer. Only the
scorer's last timed call, which refills the previous call's input tensors with new values in place,
meets a cached address, so its check is what must fail.
"""

from _correct import correct

EXPECTED = {
    "class": "X02",
    "cpu": {"status": "incorrect", "shapes": {"square_64": "incorrect"}, "detail": "a timed call's output was wrong"},
    "gpu": {"status": "incorrect", "shapes": {"square_8192": "incorrect"}, "detail": "a timed call's output was wrong"},
}
_cache = {}


def run(state, a, a_scale):
    key = (tuple(a.shape), a.data_ptr())
    if key not in _cache:
        _cache[key] = (a, correct(state, a, a_scale))  # holding `a` pins its address
    return _cache[key][1]
