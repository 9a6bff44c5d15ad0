"""W4A16 specifics on the CPU: the documented packing round-trips, the house kernel's group-strided
repack keeps every value, the byte formula counts packed weights, the former library line's tinygemm
conversion (lab/tinygemm_line.py) matches the reference, and ignoring the zero points is far outside the
tolerance."""

import os
import re
import subprocess

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")  # lab/variants.py's Triton kernels run in the CPU interpreter

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from scoring.checking import compare  # noqa: E402
from scoring.problem import import_file, load_problem  # noqa: E402
from scoring.spec import find_problem  # noqa: E402

PROBLEM = load_problem(find_problem("w4a16_gemm"))
P = PROBLEM.module
SOLUTIONS = PROBLEM.spec.directory / "solutions"


def _draw(shape, seed=0):
    gen = torch.Generator().manual_seed(seed)
    weights = P.make_weights(shape, gen, torch.device("cpu"))
    return weights, P.make_inputs(shape, weights, gen, torch.device("cpu"))


def test_packing_round_trips_and_follows_the_documented_nibble_order():
    q = torch.randint(0, 16, (256, 24))
    packed = P.pack_int4(q)
    assert packed.dtype == torch.int32 and packed.shape == (32, 24)
    assert torch.equal(P.unpack_int4(packed), q)
    k, n = 13, 5  # value k sits in nibble k % 8 of word k // 8
    assert ((int(packed[k // 8, n]) >> (4 * (k % 8))) & 0xF) == int(q[k, n])


def test_house_repack_is_a_permutation_within_each_group():
    house = import_file(SOLUTIONS / "house.py", "w4_house_test")
    q = torch.randint(0, 16, (256, 16))
    words = house.repack_group_strided(P.pack_int4(q))
    assert words.shape == (32, 16)
    for k in (0, 15, 16, 127, 128, 200):
        group, offset = divmod(k, 128)
        row, nibble = group * 16 + offset % 16, offset // 16
        assert ((int(words[row, 3]) >> (4 * nibble)) & 0xF) == int(q[k, 3])


def test_bytes_count_packed_weights():
    shape = dict(M=16, N=8192, K=28672)
    assert P.bytes_moved(shape) == 2 * 16 * 28672 + 28672 * 8192 // 2 + 4 * 224 * 8192 + 2 * 16 * 8192


def test_outputs_are_unit_variance_and_zero_points_matter():
    shape = dict(M=8, N=32, K=512)
    weights, inputs = _draw(shape)
    ref = P.reference(weights, inputs)
    assert 0.7 < ref.std().item() < 1.4
    symmetric = dict(weights, zeros=torch.full_like(weights["zeros"], 8.0))
    stats = compare(P.reference(symmetric, inputs).to(torch.bfloat16), ref, PROBLEM.spec.tolerance)
    assert not stats.passed and stats.normwise_err > 0.3


def test_tinygemm_line_repacking_matches_the_reference():
    """lab/tinygemm_line.py, the library line until issue 37 (now gemlite, tests/problems/test_w4a16_gemlite.py),
    kept as lab/measure_gemlite.py's tinygemm row: its CPU path on a small shape."""
    library = import_file(PROBLEM.spec.directory / "lab" / "tinygemm_line.py", "w4_tinygemm_line_test")
    shape = dict(M=4, N=64, K=256)
    weights, inputs = _draw(shape)
    out = library.run(library.prepare(**weights), inputs["x"])
    assert compare(out, P.reference(weights, inputs), PROBLEM.spec.tolerance).passed


def test_candidate_variants_match_the_reference_in_the_interpreter():
    """Every kernel family of lab/variants.py (lab/bench_variants.py times them on the GPU), with and without
    split K, on a ragged M (masked tokens) and a ragged N tile, in Triton's CPU interpreter."""
    from scoring import interpreter_fixes

    interpreter_fixes.apply()
    variants = import_file(PROBLEM.spec.directory / "lab" / "variants.py", "w4_variants_test")
    small = dict(BLOCK_N=32, num_warps=4, num_stages=2)
    cases = [(dict(M=1, N=48, K=512), "gemv_lean", {}), (dict(M=1, N=48, K=512), "gemv_lean", dict(SPLIT_K=2))]
    for family in ("swap16", "swap16p", "swap128"):
        cases += [
            (dict(M=20, N=48, K=512), family, dict(BLOCK_T=16)),
            (dict(M=5, N=48, K=512), family, dict(BLOCK_T=16, SPLIT_K=2)),
        ]
    for shape, family, extra in cases:
        weights, inputs = _draw(shape)
        state = variants.prepare(**weights)
        ref = P.reference(weights, inputs)
        for _ in range(2):  # twice: split K must leave its arrival counters reset
            out = variants.run_variant(state, inputs["x"], family, **small, **extra)
            stats = compare(out, ref, PROBLEM.spec.tolerance)
            assert stats.passed, (family, shape, extra, stats)


def test_house_dispatch_reaches_every_kernel_and_matches_the_reference_in_the_interpreter():
    """One small shape per row of the house's DISPATCH table (M = 1, 9, 20, 40, 130: GEMV, MMA, swap T32,
    swap T64, swap T128 with two token tiles; K split in 2 up to M = 64), each run twice (split K must
    leave its counters reset); the CPU profile's own shapes reach only some of the rows."""
    from scoring import interpreter_fixes

    interpreter_fixes.apply()
    house = import_file(SOLUTIONS / "house.py", "w4_house_dispatch_test")
    expected = {1: ("gemv", None), 9: ("mma", 16), 20: ("swap", 32), 40: ("swap", 64), 130: ("swap", 128)}
    assert len(expected) == len(house.DISPATCH)
    for M, (kernel, rows) in expected.items():
        shape = dict(M=M, N=80, K=1024)  # 8 groups of K: the decode rows split K in 2 on 4 'SMs'
        cfg = house.pick_config(M, shape["N"], shape["K"], sm_count=4)
        assert (cfg["KERNEL"], cfg.get("BLOCK_M", cfg.get("BLOCK_T"))) == (kernel, rows), (M, cfg)
        assert cfg["SPLIT_K"] == (1 if M > 64 else 2), (M, cfg)
        weights, inputs = _draw(shape)
        state = house.prepare(**weights)
        ref = P.reference(weights, inputs)
        for _ in range(2):
            stats = compare(house.run(state, inputs["x"]), ref, PROBLEM.spec.tolerance)
            assert stats.passed, (M, cfg, stats)


_HOUSE = import_file(SOLUTIONS / "house.py", "w4_house_nibble_test")


@triton.jit
def _nibbles_kernel(words_ptr, out_ptr):
    """The house's `_biased_nibble` for nibbles 0..7 of 16 words."""
    words = tl.load(words_ptr + tl.arange(0, 16))
    for j in tl.static_range(8):
        tl.store(out_ptr + 16 * j + tl.arange(0, 16), _HOUSE._biased_nibble(words, j))


def test_biased_nibble_gives_128_plus_q_and_the_ffma_dequantisation_is_exact():
    """`_biased_nibble` (house.py) yields the float 128 + q for every nibble position; and for every q, z and
    bf16 scale s of the drawn range, (128 + q) s - (128 + z) s in fp32 equals (q - z) s exactly, so the
    bf16 weight is rounded once, as the honest method's."""
    import numpy as np

    q = torch.randint(0, 16, (8, 16))
    q[:, 0] = 15  # the sign bit of the top nibble set: arithmetic shifts drag ones in
    words = sum((q[j].to(torch.int64) << (4 * j)) for j in range(8))
    words = torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)
    out = torch.empty(8 * 16, dtype=torch.float32)
    _nibbles_kernel[(1,)](words, out)
    assert torch.equal(out.view(8, 16), 128.0 + q.float())

    values = np.arange(16, dtype=np.float32)
    scales = torch.linspace(0.5 * 2**-10, 1.5 * 2**-6, 4001).to(torch.bfloat16).float().numpy()
    qq, zz, ss = np.meshgrid(values, values, scales, indexing="ij")
    fp32 = (np.float32(128) + qq) * ss - (np.float32(128) + zz) * ss  # both products exact, difference too
    assert fp32.dtype == np.float32
    assert np.array_equal(fp32.astype(np.float64), (qq.astype(np.float64) - zz) * ss.astype(np.float64))


def test_tma_candidates_match_the_reference_in_the_interpreter():
    """lab/variants_tma.py's kernels (lab/bench_tma.py times them): round-1 and exact-FFMA dequantisation, and the
    one-dot-per-step "tk" variant with K steps of 64 and 128, with and without split K, ragged M and N."""
    from scoring import interpreter_fixes

    interpreter_fixes.apply()
    import sys

    lab = PROBLEM.spec.directory / "lab"  # variants_tma.py imports its neighbour variants.py
    sys.path.insert(0, str(lab))
    try:
        variants_tma = import_file(lab / "variants_tma.py", "w4_variants_tma_test")
    finally:
        sys.path.remove(str(lab))
    cases = [("tma", {}), ("tma_ffma", dict(SPLIT_K=2)), ("tk", dict(BLOCK_K=64)), ("tk", dict(BLOCK_K=128, SPLIT_K=2))]
    for shape in (dict(M=5, N=48, K=512), dict(M=20, N=80, K=256)):
        weights, inputs = _draw(shape)
        state = variants_tma.prepare(**weights)
        ref = P.reference(weights, inputs)
        for family, extra in cases:
            for _ in range(2):
                out = variants_tma.run_variant(
                    state, inputs["x"], family, BLOCK_N=32, num_warps=4, num_stages=2, BLOCK_T=16, **extra
                )
                stats = compare(out, ref, PROBLEM.spec.tolerance)
                assert stats.passed, (family, shape, extra, stats)


# ---- The house's CUDA path: packing against the PTX fragment layout, builds, and (GPU) results ----------

_CUDA_HOUSE = import_file(SOLUTIONS / "house.py", "w4_house_cuda_test")


def test_fragment_packing_puts_each_value_where_the_mma_a_fragment_reads_it():
    """pack_fragments, read back by the PTX m16n8k16 A-fragment layout (unpack_fragments), gives q."""
    for K, N in ((128, 16), (384, 48)):
        q = torch.randint(0, 16, (K, N), generator=torch.Generator().manual_seed(K + N))
        words = _CUDA_HOUSE.pack_fragments(P.pack_int4(q))
        assert words.shape == (N // 16, K // 128, 2, 32, 4) and words.dtype == torch.int32
        assert torch.equal(_CUDA_HOUSE.unpack_fragments(words, K, N), q)


def test_scale_zero_words_hold_the_scale_and_minus_128_plus_z_exactly():
    gen = torch.Generator().manual_seed(3)
    scales = (torch.randn(2, 32, generator=gen) * 0.01).to(torch.bfloat16)
    zeros = torch.randint(0, 16, (2, 32), generator=gen).to(torch.bfloat16)
    packed = _CUDA_HOUSE.pack_scale_zero(scales, zeros)
    low = (packed & 0xFFFF).to(torch.int16).view(torch.bfloat16)
    high = ((packed >> 16) & 0xFFFF).to(torch.int16).view(torch.bfloat16)
    assert torch.equal(low, scales)
    assert torch.equal(high.float(), -(128.0 + zeros.float()))


def test_cuda_path_is_not_taken_on_the_cpu_and_prepare_falls_back_to_triton():
    assert _CUDA_HOUSE.cuda_path_unavailable(torch.device("cpu")) == "device is cpu"
    weights, _ = _draw({"M": 1, "N": 16, "K": 128})
    assert _CUDA_HOUSE.prepare(**weights)["path"] == "triton"


def test_cuda_dispatch_rows_are_ordered_and_splits_respect_k():
    bounds = [row[0] for row in _CUDA_HOUSE.CUDA_DISPATCH]
    assert bounds[-1] is None and bounds[:-1] == sorted(bounds[:-1])
    for M in (1, 8, 9, 16, 17, 64, 65, 256, 300):
        cfg, split = _CUDA_HOUSE.cuda_config(M, 8192, 1024, sm_count=132, resident=lambda cfg: cfg.min_blocks)
        assert M > 64 or M <= cfg.BM  # decode and batch rows cover M with one token tile
        assert 1 <= split <= 1024 // 128 // 2 or split == 1


def test_split_k_fills_whole_waves_of_resident_blocks():
    cfg = _CUDA_HOUSE.TileConfig(2, 64, stages=3, min_blocks=2)  # 128 columns x 64 tokens
    # M = 64, N = 10240: 80 output tiles, 64 K tiles, 2 x 132 slots. 7 splits would be 560 blocks, 3 waves
    # (the last 12% full); 3 splits are one wave of 240 blocks of 22 K tiles.
    assert _CUDA_HOUSE.split_for(cfg, 64, 10240, 8192, slots=264) == 3
    # Enough tiles to fill the GPU: no split.
    assert _CUDA_HOUSE.split_for(cfg, 64, 128 * 264, 8192, slots=264) == 1
    # Splits keep at least two K tiles each, and one K tile is never split.
    assert _CUDA_HOUSE.split_for(cfg, 64, 128, 512, slots=264) == 2
    assert _CUDA_HOUSE.split_for(cfg, 64, 128, 128, slots=264) == 1


def test_tile_config_names_its_flags_and_rejects_what_the_kernel_cannot_run():
    plain = _CUDA_HOUSE.TileConfig(2, 128, stages=3)
    overlapped = _CUDA_HOUSE.TileConfig(2, 128, stages=3, overlap=True)
    clustered = _CUDA_HOUSE.TileConfig(2, 128, stages=3, cluster=2)
    assert len({plain.name, overlapped.name, clustered.name}) == 3
    assert "true" in overlapped.wrapper and "false" in plain.wrapper
    assert "__cluster_dims__(2, 1, 1)" in clustered.wrapper and "__cluster_dims__" not in plain.wrapper
    assert (plain.BN, plain.threads) == (128, 2 * 128 + 32)  # two consumer warpgroups and the producer warp
    for bad in (
        dict(warpgroups=2, BM=24),
        dict(warpgroups=2, BM=64, stages=1),
        dict(warpgroups=2, BM=64, cluster=3),
        dict(warpgroups=0, BM=64),
    ):
        with pytest.raises(ValueError):
            _CUDA_HOUSE.TileConfig(**bad)


@pytest.mark.skipif(_CUDA_HOUSE.nvcc_path() is None, reason="nvcc not on this machine")
def test_every_dispatched_cuda_kernel_builds_for_sm90a_without_spills_or_serialised_wgmma(tmp_path):
    """nvcc (no GPU needed) builds each CUDA_DISPATCH kernel; ptxas reports no spills and no C7513 (wgmmas
    serialised because an operand register was written while one was in flight)."""
    for _, cfg, _ in _CUDA_HOUSE.CUDA_DISPATCH:
        source = tmp_path / f"{cfg.name}.cu"
        source.write_text(_CUDA_HOUSE.CUDA_SOURCE + cfg.wrapper)
        proc = subprocess.run(
            [
                _CUDA_HOUSE.nvcc_path(),
                *_CUDA_HOUSE.NVCC_FLAGS,
                "-Xptxas",
                "-v",
                "-o",
                str(tmp_path / f"{cfg.name}.cubin"),
                str(source),
            ],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "C7513" not in proc.stderr, f"{cfg}: {proc.stderr[-1000:]}"
        spills = [int(n) for n in re.findall(r"(\d+) bytes spill stores", proc.stderr)]
        assert spills and max(spills) == 0, f"{cfg}: {proc.stderr[-1000:]}"


@pytest.mark.gpu
def test_cuda_house_matches_the_reference_on_every_dispatch_row_and_awkward_shapes():
    """On a Hopper GPU: every CUDA_DISPATCH row (M = 1, 12, 20, 40, 130) on N not a multiple of the tile,
    three calls per shape on fresh inputs (split K's counters reset; the shape's cached launch plan encodes
    each call's x), with the problem's check."""
    device = torch.device("cuda")
    if _CUDA_HOUSE.cuda_path_unavailable(device):
        pytest.skip(_CUDA_HOUSE.cuda_path_unavailable(device))
    for M, N, K in ((1, 272, 1024), (12, 4144, 512), (20, 80, 256), (40, 1040, 1280), (130, 336, 384)):
        shape = {"M": M, "N": N, "K": K}
        gen = torch.Generator(device=device).manual_seed(M)
        weights = P.make_weights(shape, gen, device)
        state = _CUDA_HOUSE.prepare(**weights)
        assert state["path"] == "cuda"
        for _ in range(3):
            inputs = P.make_inputs(shape, weights, gen, device)
            stats = compare(_CUDA_HOUSE.run(state, inputs["x"]), P.reference(weights, inputs), PROBLEM.spec.tolerance)
            assert stats.passed, (shape, stats)
        assert list(state["plans"]) == [(M, K)]
