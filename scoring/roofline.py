"""Roofline arithmetic, torch-free (the site build reuses it).

Per shape: roofline time = max(flops / peak_flops[precision], bytes / peak_bandwidth); the fraction is
roofline time over measured time, so compute-bound and memory-bound shapes land on one 0..1 scale.
A fraction above 1.0 is physically impossible (a wrong peak, or an exploit such as L2 residency) and
is rejected, never scored. A problem's score is the geometric mean of its shapes' fractions.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

MAX_PLAUSIBLE_FRACTION = 1.0


@dataclass(frozen=True)
class RooflinePoint:
    flops: int
    bytes_moved: int
    roofline_ms: float
    bound: str  # "compute" or "memory": which roof sets the floor
    achieved_tflops: float
    achieved_gbps: float
    fraction: float

    def as_dict(self) -> dict:
        return asdict(self)


def roofline_ms(flops: float, bytes_moved: float, peak_tflops: float, peak_gbps: float) -> tuple[float, str]:
    compute_ms = flops / (peak_tflops * 1e12) * 1e3
    memory_ms = bytes_moved / (peak_gbps * 1e9) * 1e3
    return (compute_ms, "compute") if compute_ms >= memory_ms else (memory_ms, "memory")


def roofline_point(
    flops: int, bytes_moved: int, measured_ms: float, peak_tflops: float, peak_gbps: float
) -> RooflinePoint:
    floor_ms, bound = roofline_ms(flops, bytes_moved, peak_tflops, peak_gbps)
    seconds = measured_ms / 1e3
    return RooflinePoint(
        flops, bytes_moved, floor_ms, bound, flops / seconds / 1e12, bytes_moved / seconds / 1e9, floor_ms / measured_ms
    )


def geomean(values: list[float]) -> float:
    """Geometric mean; 0.0 if any value is 0 (a failed shape), NaN for an empty list."""
    if not values:
        return math.nan
    if any(v <= 0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))
