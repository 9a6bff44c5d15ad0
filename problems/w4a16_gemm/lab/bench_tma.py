"""Check and time the round-2 candidates of variants_tma.py against the house kernel on the GPU, in one run.

    python problems/w4a16_gemm/lab/bench_tma.py --out $OUT/bench_tma.json [--only tk,house] [--shapes ...]

Same procedure and table as bench_variants.py (its `main`, with this file's candidates). Why these:
* "tma_ffma" vs "tma": the exact-FFMA dequantisation against round 1's, on the same TMA kernel.
* "tma_ws": "tma_ffma" with Triton's warp specialisation of the K loop (producer warps for the TMA loads).
* "tk": one K = 64 or 128 dot per step (eight K = 16 dots with a wait after each are what the round-1
  SASS shows); BLOCK_N 64 (one warpgroup) to 256, tokens tile = M rounded up to a power of two >= 16.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_variants  # noqa: E402
import variants_tma  # noqa: E402

_cfg = bench_variants._cfg
HOUSE = bench_variants.HOUSE


def tk(BLOCK_N, num_warps, num_stages, BLOCK_T, BLOCK_K, SPLIT_K=None):
    variant, cfg = _cfg("tk", BLOCK_N, num_warps, num_stages, BLOCK_T=BLOCK_T, SPLIT_K=SPLIT_K)
    return variant, dict(cfg, BLOCK_K=BLOCK_K)


def decode(T):
    """M <= 32: memory-bound; the weight is read once per call whatever the token tile."""
    return [HOUSE, _cfg("tma_ffma", 64, 4, 3, BLOCK_T=T), _cfg("tma_ffma", 64, 4, 4, BLOCK_T=T),
            _cfg("tma", 64, 4, 3, BLOCK_T=T), _cfg("tma_ffma", 128, 4, 3, BLOCK_T=T),
            tk(64, 4, 3, T, 128), tk(64, 4, 4, T, 64), tk(128, 4, 3, T, 128), tk(128, 8, 4, T, 64),
            _cfg("tma_ws", 64, 4, 3, BLOCK_T=T), _cfg("tma_ws", 128, 4, 3, BLOCK_T=T)]


CANDIDATES_BY_M = [
    (1, decode(16)), (7, decode(16)), (16, decode(16)), (32, decode(32)),
    (64, [HOUSE, _cfg("tma_ffma", 64, 4, 3, BLOCK_T=64), _cfg("tma_ffma", 128, 8, 3, BLOCK_T=64),
          tk(64, 4, 3, 64, 128), tk(64, 4, 4, 64, 64), tk(128, 4, 3, 64, 128), tk(128, 8, 3, 64, 128),
          tk(128, 8, 4, 64, 64), _cfg("tma_ws", 64, 4, 3, BLOCK_T=64), _cfg("tma_ws", 128, 8, 3, BLOCK_T=64),
          _cfg("tma_ws", 128, 4, 3, BLOCK_T=64)]),
    (128, [HOUSE, _cfg("tma_ffma", 128, 8, 3, BLOCK_T=128, SPLIT_K=1), tk(128, 8, 3, 128, 64, SPLIT_K=1),
           tk(128, 8, 3, 128, 128, SPLIT_K=1), tk(64, 4, 3, 128, 128, SPLIT_K=1), tk(128, 8, 3, 64, 128),
           tk(256, 8, 3, 128, 64, SPLIT_K=1)]),
    (256, [HOUSE, _cfg("tma_ffma", 128, 8, 3, BLOCK_T=128, SPLIT_K=1),
           _cfg("tma_ffma", 128, 8, 3, BLOCK_T=256, SPLIT_K=1),
           tk(128, 8, 3, 128, 64, SPLIT_K=1), tk(128, 8, 3, 256, 64, SPLIT_K=1), tk(256, 8, 3, 128, 64, SPLIT_K=1),
           tk(128, 8, 3, 128, 128, SPLIT_K=1), tk(128, 8, 4, 128, 64, SPLIT_K=1),
           _cfg("tma_ws", 128, 8, 3, BLOCK_T=128, SPLIT_K=1), _cfg("tma_ws", 128, 4, 3, BLOCK_T=128, SPLIT_K=1),
           _cfg("tma_ws", 128, 8, 3, BLOCK_T=256, SPLIT_K=1)]),
]


def candidates(M: int):
    for m_class, configs in CANDIDATES_BY_M:
        if M <= m_class:
            return configs
    return CANDIDATES_BY_M[-1][1]


if __name__ == "__main__":
    bench_variants.main(variants_tma, candidates)
