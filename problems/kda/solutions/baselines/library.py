"""Library line: flash-linear-attention's chunk_kda (pure Triton, fla-core 0.6.0), brought to the GPU
machine as a wheel. Where fla is absent (CI, a bare machine) the import fails and the line is recorded as
not_available."""

import fla  # noqa: F401  (ImportError -> not_available)
from fla.ops.kda import chunk_kda

LABEL = "flash-linear-attention chunk_kda"


def library_version():
    return f"flash-linear-attention (fla-core) {getattr(fla, '__version__', '?')}"


def run(state, q, k, v, g, beta, scale):
    o, _final_state = chunk_kda(q, k, v, g, beta, scale=scale)
    return o
