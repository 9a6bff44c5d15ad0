"""paged_attention's library line, FlashInfer's paged decode (problems/paged_attention/solutions/baselines/
library.py), on the CPU, where FlashInfer is absent: its conversion of our block table and lengths into
FlashInfer's CSR pages (torch only, imported here with a stand-in flashinfer module) rebuilds every sequence's
K/V rows exactly; the cache is handed over as the same tensors; the GQA path rule; a FLASHINFER_WORKSPACE_BASE
the worker cannot write is dropped before FlashInfer reads it; the line itself fails at import without
FlashInfer (-> not_available); and the CPU-testable parts of the GPU measurement script (its arguments and
its table)."""

import importlib.util
import math
import os
import sys

import pytest
import torch

from scoring.problem import import_file, load_problem
from scoring.spec import find_problem
from tests.problems.helpers import stand_in_module

PROBLEM_DIR = find_problem("paged_attention")
LAB = PROBLEM_DIR / "lab"
LIBRARY = PROBLEM_DIR / "solutions" / "baselines" / "library.py"
P = load_problem(PROBLEM_DIR).module


def stand_in_flashinfer():
    """FlashInfer is not installed here, and the helpers under test never call it."""
    return stand_in_module("flashinfer", __version__="stand-in")


with stand_in_flashinfer():
    pages = import_file(LIBRARY, "paged_library_helpers")
PAGE = P.PAGE_SIZE


def _rows_from_csr(cache, kv_indptr, kv_indices, kv_last_page_len, b):
    """Sequence b's (length, Hkv, D) rows as FlashInfer reads them: its pages in order, the last one cut to
    kv_last_page_len[b] tokens."""
    first, last = int(kv_indptr[b]), int(kv_indptr[b + 1])
    seq_pages = kv_indices[first:last].long()
    assert seq_pages.numel() >= 1
    length = (seq_pages.numel() - 1) * PAGE + int(kv_last_page_len[b])
    return cache[seq_pages].reshape(-1, *cache.shape[2:])[:length]


def _rows_from_table(cache, block_table, seq_lens, b):
    """The contract's rows: block_table[b, :ceil(len / 16)], truncated to len (written out here, not
    problem.gather_sequence, so that the test does not share code with what it checks)."""
    length = int(seq_lens[b])
    used = block_table[b, : math.ceil(length / PAGE)].long()
    return cache[used].reshape(-1, *cache.shape[2:])[:length]


def _check_conversion(cache, block_table, seq_lens):
    kv_indptr, kv_indices, kv_last_page_len = pages.paged_kv_layout(block_table, seq_lens, PAGE)
    B = block_table.shape[0]
    for tensor in (kv_indptr, kv_indices, kv_last_page_len):
        assert tensor.dtype == torch.int32  # plan() refuses anything else
    assert kv_indptr.shape == (B + 1,) and kv_last_page_len.shape == (B,) and int(kv_indptr[0]) == 0
    # exactly the pages the sequences use: no garbage entry of the table is listed
    assert kv_indices.numel() == int(kv_indptr[-1]) == sum(math.ceil(int(n) / PAGE) for n in seq_lens)
    assert int(kv_last_page_len.min()) >= 1 and int(kv_last_page_len.max()) <= PAGE
    for b in range(B):
        got = _rows_from_csr(cache, kv_indptr, kv_indices, kv_last_page_len, b)
        want = _rows_from_table(cache, block_table, seq_lens, b)
        assert got.shape == want.shape == (int(seq_lens[b]), *cache.shape[2:])
        assert torch.equal(got, want)


def _random_case(gen, B, width, pool):
    """A block table with random garbage past each sequence's pages, and lengths that include 1, exact
    multiples of the page size, the maximum width (width * 16) and one past a page boundary."""
    lengths = torch.randint(1, width * PAGE + 1, (B,), generator=gen)
    lengths[0], lengths[1], lengths[2] = 1, width * PAGE, PAGE * max(1, width // 2)
    lengths[3] = PAGE + 1 if width > 1 else 2
    block_table = torch.randint(0, pool, (B, width), generator=gen, dtype=torch.int32)
    return block_table, lengths.to(torch.int32)


@pytest.mark.parametrize("seed", range(6))
def test_csr_pages_rebuild_every_sequence_of_random_tables(seed):
    gen = torch.Generator().manual_seed(seed)
    B, width = 5 + seed, 1 + 3 * seed
    pool = 2 * B * width + 3
    cache = torch.randn((pool, PAGE, 2, 8), generator=gen).to(torch.bfloat16)
    block_table, seq_lens = _random_case(gen, B, width, pool)
    _check_conversion(cache, block_table, seq_lens)


def test_last_page_len_is_one_to_page_size_at_the_boundaries():
    seq_lens = torch.tensor([1, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE, 3 * PAGE - 1], dtype=torch.int32)
    block_table = torch.arange(6 * 3, dtype=torch.int32).reshape(6, 3)
    kv_indptr, kv_indices, kv_last_page_len = pages.paged_kv_layout(block_table, seq_lens, PAGE)
    assert kv_last_page_len.tolist() == [1, PAGE - 1, PAGE, 1, PAGE, PAGE - 1]
    assert kv_indptr.tolist() == [0, 1, 2, 3, 5, 7, 10]
    assert kv_indices.tolist() == [0, 3, 6, 9, 10, 12, 13, 15, 16, 17]


@pytest.mark.parametrize(
    "shape",
    [dict(B=6, Hkv=1, G=3, D=64, L=33, edges=1), dict(B=9, Hkv=2, G=2, D=64, L=40, edges=0)],
    ids=["edges", "plain"],
)
def test_csr_pages_rebuild_the_problems_own_inputs(shape):
    gen = torch.Generator().manual_seed(7)
    weights = P.make_weights(shape, gen, torch.device("cpu"))
    inputs = P.make_inputs(shape, weights, gen, torch.device("cpu"))
    for cache in (weights["k_cache"], weights["v_cache"]):
        _check_conversion(cache, inputs["block_table"], inputs["seq_lens"])


def test_conversion_refuses_what_flashinfer_cannot_express():
    table = torch.zeros((2, 2), dtype=torch.int32)
    with pytest.raises(ValueError, match="at least one token"):
        pages.paged_kv_layout(table, torch.tensor([0, 3], dtype=torch.int32), PAGE)
    with pytest.raises(ValueError, match="pages"):
        pages.paged_kv_layout(table, torch.tensor([2 * PAGE + 1, 3], dtype=torch.int32), PAGE)


def test_cache_is_handed_over_without_a_copy_and_scale_is_the_contracts():
    k = torch.zeros((4, PAGE, 2, 64), dtype=torch.bfloat16)
    v = torch.ones_like(k)
    got_k, got_v = pages.paged_kv_cache(k, v)
    assert got_k is k and got_v is v  # NHD already: the same tensors
    assert pages.softmax_scale(128) == pytest.approx(1 / math.sqrt(128))


def test_tensor_cores_only_where_the_cuda_core_kernel_lacks_g():
    assert [g for g in range(1, 9) if pages.use_tensor_cores(g)] == [5, 6, 7]
    assert pages.use_tensor_cores(4, "tensor_cores") is True
    with pytest.raises(ValueError, match="G = 7"):
        pages.use_tensor_cores(7, "cuda_cores")


@pytest.mark.skipif(importlib.util.find_spec("flashinfer") is not None, reason="flashinfer is installed here")
def test_the_line_fails_at_import_without_flashinfer():
    """The scorer turns a reference line's failed import into not_available (scoring/run.py)."""
    with pytest.raises(ImportError, match="flashinfer"):
        import_file(LIBRARY, "paged_flashinfer_line_probe")
    assert "paged_flashinfer_line_probe" not in sys.modules


def test_the_line_is_labelled_and_versioned_where_it_imports():
    assert "FlashInfer" in pages.LABEL and "plan + run per call" in pages.LABEL
    assert pages.library_version() == "flashinfer-python stand-in BatchDecodeWithPagedKVCacheWrapper"
    assert pages.PAGE_SIZE == P.PAGE_SIZE


def test_a_workspace_base_the_worker_cannot_write_is_dropped(tmp_path):
    """The worker's sandbox leaves only its HOME and scratch writable: FlashInfer, which creates its workspace
    at import, must not be sent to a read-only folder by an inherited FLASHINFER_WORKSPACE_BASE."""
    writable = tmp_path / "ws" / "not-yet-made"
    env = {"FLASHINFER_WORKSPACE_BASE": str(writable)}
    assert pages._writable_workspace_base(env) == str(writable) and env  # creatable under tmp_path: kept
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        can_write = pages._can_write
        if can_write(locked):  # root ignores permission bits: a read-only mount reads as locked does for others

            def can_write(folder):
                return folder != locked and pages._can_write(folder)

        env = {"FLASHINFER_WORKSPACE_BASE": str(locked / "ws"), "OTHER": "1"}
        assert pages._writable_workspace_base(env, can_write) == os.path.expanduser("~")
        assert env == {"OTHER": "1"}  # dropped: FlashInfer falls back to the home folder (the worker's cache)
    finally:
        locked.chmod(0o700)
    env = {}
    assert pages._writable_workspace_base(env) == os.path.expanduser("~") and env == {}


def test_measure_script_arguments_and_table():
    measure = import_file(LAB / "measure_flashinfer.py", "paged_measure_flashinfer")
    args = measure.parse_args(["--shapes", "all", "--min-calls", "60", "--out", "/tmp/x.json"])
    assert args.shapes == "all" and args.min_calls == 60 and args.out == "/tmp/x.json"
    assert measure.parse_args([]).min_calls >= 50
    with pytest.raises(SystemExit):
        measure.parse_args(["--min-calls", "10"])
    rows = [
        dict(shape="s1", line="house", median_us=100.0, gbps=2500.0, fraction=0.75, passed=True, normwise=1e-3),
        dict(shape="s1", line="flashinfer", error="RuntimeError: boom"),
    ]
    table = measure.format_table(rows)
    lines = table.splitlines()
    assert lines[0].startswith("| shape |") and len(lines) == 4
    assert "0.750" in lines[2] and "2500" in lines[2] and "RuntimeError: boom" in lines[3]
