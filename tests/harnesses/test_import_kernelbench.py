"""The kernelbench.com importer on a synthetic clone: what it selects, what it writes, what it refuses."""

import hashlib
import json
import os
import re
import threading
import time
from pathlib import Path

import pytest

from harnesses import import_kernelbench as importer
from harnesses.kernelbench import cutlass_offer, schedule
from harnesses.kernelbench import layout
from harnesses.kernelbench.catalog import CatalogError, published_runs
from scoring.options import OptionError

AGENT_FILE = b"import torch\n\nclass Model(torch.nn.Module):\n    pass\n"


def make_clone(root, runs):
    """A clone with their leaderboard layout: runs = [(harness, model, effort, their_problem, run_id, fraction)]."""
    models = {}
    for harness, model, effort, problem, run_id, fraction in runs:
        entry = models.setdefault(
            (harness, model, effort),
            {
                "label": f"{harness}/{model} [{effort}]",
                "harness": harness,
                "model": model,
                "effort": effort,
                "results": {},
            },
        )
        entry["results"][problem] = {
            "run_id": run_id,
            "correct": fraction is not None,
            "has_solution": True,
            "peak_fraction": fraction,
            "elapsed_seconds": 100,
            "annotation_verdict": "clean",
            "output_tokens": 5,
        }
        path = root / "public" / "runs" / "h100" / f"{run_id}_solution.py.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(AGENT_FILE + run_id.encode())
    board = root / "benchmarks" / "hard" / "results" / "leaderboard.h100.json"
    board.parent.mkdir(parents=True, exist_ok=True)
    board.write_text(
        json.dumps({"schema_version": 1, "hardware": {"name": "NVIDIA H100 PCIe"}, "models": list(models.values())})
    )
    return root


@pytest.fixture
def adapters(tmp_path, monkeypatch):
    """fp8_gemm adaptable, topk declared not faithful, the others without an adapter."""
    folder = tmp_path / "adapters"
    folder.mkdir()
    (folder / "fp8_gemm.py").write_text(
        'FAITHFUL = True\nPER_CALL_GLUE = "one multiply"\nTHEIR_PROBLEM = "01_fp8_gemm"\nimport agent_solution\n'
    )
    (folder / "topk.py").write_text('FAITHFUL = False\nWHY_NOT = "their contract returns unsorted values"\n')
    monkeypatch.setattr(layout, "ADAPTERS", folder)
    return folder


RUNS = [
    ("codex", "gpt-5.5", "xhigh", "01_fp8_gemm", "20260618_041754_codex_gpt-5.5_01_fp8_gemm", 0.24),
    ("claude", "opus", "max", "01_fp8_gemm", "20260618_041709_claude_opus_01_fp8_gemm", None),
    ("claude", "opus", "max", "05_topk_bitonic", "20260618_041800_claude_opus_05_topk_bitonic", 0.05),
    ("claude", "opus", "max", "04_not_ours", "20260618_041900_claude_opus_04_not_ours", 0.5),
]


def test_every_adaptable_run_gets_a_folder_with_the_file_unchanged_and_its_provenance(tmp_path, adapters):
    clone = make_clone(tmp_path / "clone", RUNS)
    out = tmp_path / "out"
    lines = []
    config = importer.parse(importer.ImportConfig, [f"path={clone}", f"out={out}"], "test")
    assert importer.run_import(config, echo=lambda text, **_: lines.append(text)) == 0
    assert "skip topk: their contract returns unsorted values" in lines
    index = json.loads((out / "index.json").read_text())
    assert [e["run_id"] for e in index["runs"]] == sorted(r[4] for r in RUNS[:2])  # ours, adaptable, by run id
    folder = out / "fp8_gemm" / RUNS[0][4]
    source = (clone / "public/runs/h100" / f"{RUNS[0][4]}_solution.py.txt").read_bytes()
    assert (folder / "agent_solution.py").read_bytes() == source
    assert (folder / "solution.py").read_bytes() == (adapters / "fp8_gemm.py").read_bytes()
    agent = json.loads((folder / "agent.json").read_text())
    assert (agent["harness"], agent["model"], agent["effort"]) == ("codex", "gpt-5.5", "xhigh")
    assert agent["rescored_from"] == "kernelbench.com" and agent["run_date"] == "2026-06-18 04:17:54"
    assert agent["source"]["sha256"] == hashlib.sha256(source).hexdigest()
    assert agent["source"]["path"] == f"public/runs/h100/{RUNS[0][4]}_solution.py.txt"
    assert agent["published"]["peak_fraction"] == 0.24 and agent["published"]["hardware"] == "NVIDIA H100 PCIe"
    assert agent["adapter"]["per_call_glue"] == "one multiply"


def test_importing_one_problem_after_another_builds_up_one_index(tmp_path, adapters):
    (adapters / "topk.py").write_text('FAITHFUL = True\nPER_CALL_GLUE = "none"\nTHEIR_PROBLEM = "05_topk_bitonic"\n')
    clone = make_clone(tmp_path / "clone", RUNS)
    out = tmp_path / "out"
    quiet = lambda text, **_: None  # noqa: E731
    for problem in ("fp8_gemm", "topk"):
        config = importer.parse(importer.ImportConfig, [f"path={clone}", f"out={out}", f"problems={problem}"], "t")
        assert importer.run_import(config, echo=quiet) == 0
    index = json.loads((out / "index.json").read_text())
    assert sorted(e["run_id"] for e in index["runs"]) == sorted(r[4] for r in RUNS[:3])
    config = importer.parse(importer.ImportConfig, [f"path={clone}", f"out={out}", "problems=topk"], "t")
    assert importer.run_import(config, echo=quiet) == 0  # importing again replaces, never duplicates
    assert len(json.loads((out / "index.json").read_text())["runs"]) == 3


def test_runs_are_shared_out_one_per_gpu_at_a_time_each_scorer_pinned_to_its_gpu(tmp_path, adapters):
    """gpus=0,1: two scorers at once, each seeing one GPU (CUDA_VISIBLE_DEVICES, since agents' files allocate on
    `cuda`), and agent.json saying the host scored others meanwhile. Each solution records its GPU and when it
    was imported, then holds its import for 3 s, and says what it saw in its import error (the scoring sandbox
    leaves every folder but its scratch read-only): the two imports overlap only if the runs ran at once."""
    clone = make_clone(tmp_path / "clone", RUNS)
    out, results, lines = tmp_path / "out", tmp_path / "results", []
    config = importer.parse(
        importer.ImportConfig, [f"path={clone}", f"out={out}", f"results={results}", "gpus=0,1"], "t"
    )
    assert importer.run_import(config, echo=lambda text, **_: None) == 0
    for run in RUNS[:2]:
        (out / "fp8_gemm" / run[4] / "solution.py").write_text(
            "import os, time\nstarted = time.time()\ntime.sleep(3)\n"
            "raise ImportError('seen %s %s %s' % (os.environ.get('CUDA_VISIBLE_DEVICES'), started, time.time()))\n"
        )
    config = importer.parse(importer.ImportConfig, [f"out={out}", f"results={results}", "score=true", "gpus=0,1"], "t")
    importer.run_import(config, echo=lambda text, **_: lines.append(text))
    seen = []
    for run in RUNS[:2]:
        log = (out / "fp8_gemm" / run[4] / "score.log").read_text()
        found = re.search(r"ImportError: seen (\S+) (\S+) (\S+)", log)
        assert found, log
        seen.append(found.groups())
    assert sorted(gpu for gpu, _, _ in seen) == ["0", "1"], lines
    (_, start_a, end_a), (_, start_b, end_b) = seen
    assert float(start_a) < float(end_b) and float(start_b) < float(end_a), "the two runs did not overlap"
    assert sorted(line.split("] ")[0].split("[")[-1] for line in lines) == ["GPU 0", "GPU 1"], lines
    for run in RUNS[:2]:
        environment = json.loads((out / "fp8_gemm" / run[4] / "agent.json").read_text())["environment"]
        assert environment["gpu"].endswith("of 2 on this host scoring at once, one run each (CUDA_VISIBLE_DEVICES)")
    with pytest.raises(OptionError, match="pinned to one GPU"):
        schedule.score_runs(importer.ImportConfig(score=True, gpus="0,1", device="cuda:1"), [])


def test_a_run_that_would_not_finish_by_the_deadline_is_not_started(tmp_path, adapters):
    """deadline_s: a problem's median re-scored run so far (here a recorded 1000 s fp8 run) decides whether
    its next run can finish; a problem with none is assumed to take unknown_run_s."""
    clone = make_clone(tmp_path / "clone", RUNS)
    out, results, lines = tmp_path / "out", tmp_path / "results", []
    earlier = results / "h100_sxm" / "earlier.json"
    earlier.parent.mkdir(parents=True)
    earlier.write_text(
        json.dumps(
            {
                "agent": {"rescored_from": importer.RESCORED_FROM},
                "problem": {"name": "fp8_gemm"},
                "systems": [{"wall_s": 1000.0}],
            }
        )
    )
    (results / "h100_sxm" / "house.json").write_text(
        json.dumps({"agent": None, "problem": {"name": "topk"}, "systems": [{"wall_s": 5000.0}]})
    )  # not re-scored
    assert schedule.run_times_s(results) == {"fp8_gemm": [1000.0]}
    config = importer.parse(
        importer.ImportConfig,
        [f"path={clone}", f"out={out}", f"results={results}", "score=true", "deadline_s=600", "unknown_run_s=1000"],
        "t",
    )
    assert importer.run_import(config, echo=lambda text, **_: lines.append(text)) == 1
    passed_over = [line for line in lines if "not started" in line]
    assert len(passed_over) == 2 and all(
        "needs about 1265 s" in line and "(deadline_s)" in line for line in passed_over
    )
    assert sorted(p.name for p in results.glob("*/*.json")) == ["earlier.json", "house.json"]  # nothing started
    with pytest.raises(OptionError, match="unknown_run_s"):
        importer.parse(importer.ImportConfig, ["score=true", "unknown_run_s=0"], "t")


def test_selection_by_problem_and_run_and_clear_errors(tmp_path, adapters):
    clone = make_clone(tmp_path / "clone", RUNS)
    chosen, _ = importer.selected_runs(importer.ImportConfig(path=str(clone), runs="codex"), published_runs(clone))
    assert [r.harness for r in chosen] == ["codex"]
    with pytest.raises(OptionError, match="problems=softmax: softmax not among the published problems"):
        importer.selected_runs(importer.ImportConfig(path=str(clone), problems="softmax"), published_runs(clone))
    with pytest.raises(CatalogError, match="leaderboard.h100.json: not found; path= must be a clone"):
        published_runs(tmp_path)
    broken = tmp_path / "broken" / "benchmarks" / "hard" / "results" / "leaderboard.h100.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{\"schema_version\": 2}")
    with pytest.raises(CatalogError, match="field 'models' missing"):
        published_runs(tmp_path / "broken")
    assert importer.main([f"path={tmp_path / 'nowhere'}"]) == 2
    assert importer.main(["score=false"]) == 2  # neither a clone nor scoring


def test_a_run_already_scored_for_the_same_file_and_adapter_is_found(tmp_path):
    results = tmp_path / "results" / "h100_sxm"
    results.mkdir(parents=True)
    (results / "a.json").write_text(
        json.dumps({"agent": {"source": {"sha256": "f" * 64}, "adapter": {"sha256": "a" * 64}}})
    )
    (results / "junk.json").write_text("{not json")
    assert schedule.existing_result(tmp_path / "results", "f" * 64, "a" * 64) == results / "a.json"
    assert schedule.existing_result(tmp_path / "results", "f" * 64, "b" * 64) is None  # the adapter changed


def test_a_sidecar_appended_by_their_export_is_split_back_into_its_own_file(tmp_path):
    python = b"from pathlib import Path\nSRC = Path(__file__).parent / 'k.cu'\n"
    cuda = b"// kernel\n__global__ void k() {}\n"
    banner = (
        b"\n# "
        + b"=" * 20
        + b"\n# ===== sidecar: k.cu (33 bytes, loaded by solution.py) =====\n# "
        + b"=" * 20
        + b"\n\n"
    )
    published = python + banner + cuda
    solution, sidecars, record = layout.split_sidecars(published)
    assert solution == python + b"\n" and sidecars == {"k.cu": cuda}
    assert record == [
        {"name": "k.cu", "bytes": len(cuda), "declared_size": 33, "sha256": hashlib.sha256(cuda).hexdigest()}
    ]
    folder = tmp_path / "run"
    layout.write_solution_folder(folder, "fp8_gemm", published, {"harness": "h"})
    assert (folder / "k.cu").read_bytes() == cuda
    assert json.loads((folder / "agent.json").read_text())["sidecars_split_out"][0]["name"] == "k.cu"
    hostile = python + banner.replace(b"k.cu", b"agent.json") + b"{}"
    assert layout.split_sidecars(hostile)[1] == {}  # never overwrites the folder's own files
    assert layout.split_sidecars(python) == (python, {}, [])


def test_a_failed_build_is_told_from_other_failures_and_keeps_the_compilers_reason(tmp_path):
    from kernelbench_their_model import build_failure_reason, builds_an_extension

    failed = RuntimeError(
        "Error building extension 'fp8'\n[1/2] nvcc ...\n"
        "/tmp/x.cu:3:10: fatal error: cutlass/cutlass.h: No such file or directory\n"
    )
    assert (
        build_failure_reason(failed) == "RuntimeError: /tmp/x.cu:3:10: fatal error: cutlass/cutlass.h: No such "
        "file or directory"
    )
    assert build_failure_reason(AssertionError("N % 128 == 0")) is None  # the shape, not the build
    agent = tmp_path / "agent_solution.py"
    agent.write_text("import triton\n")
    module = type(json)("agent_solution")
    module.__file__ = str(agent)
    assert not builds_an_extension(module)
    (tmp_path / "k.cu").write_text("#include <cutlass/gemm.h>\n")  # a sidecar that needs building
    assert builds_an_extension(module)


def test_the_report_sets_their_verdict_beside_ours_and_counts_their_passes(tmp_path):
    from harnesses.kernelbench.report import report

    folder = tmp_path / "h100_sxm"
    folder.mkdir()

    def result(name, sha, correct, theirs, status, ours, failure=None):
        agent = {
            "harness": "codex",
            "model": name,
            "effort": "xhigh",
            "rescored_from": "kernelbench.com",
            "source": {"sha256": sha},
            "published": {"correct": correct, "peak_fraction": theirs},
        }
        return {
            "agent": agent,
            "problem": {"name": "fp8_gemm"},
            "status": status,
            "score": {"fraction": ours},
            "systems": [{"status": status, "failure": failure}],
        }

    near = {"class": "near_miss", "label": "near miss", "unseen_only": True, "detail": "3 of 10 elements"}
    (folder / "20260101T000000Z-a.json").write_text(json.dumps(result("old", "s1", True, 0.2, "passed", 0.3)))
    (folder / "20260101T000001Z-a.json").write_text(json.dumps(result("new", "s1", True, 0.2, "incorrect", 0.0, near)))
    (folder / "20260101T000002Z-b.json").write_text(json.dumps(result("b", "s2", False, None, "passed", 0.1)))
    (folder / "20260101T000003Z-c.json").write_text(json.dumps({"agent": None, "systems": []}))  # not re-scored
    text = report(tmp_path)
    assert (
        "2 scored; of their 1 passes, 0 pass here (the code they timed); their passes not passed here: "
        "near_miss 1 (all 2 files: near_miss 1)."
    ) in text
    assert "Verdicts over their 1 passes: a 0, b 0, c 1, rescore 0; over all 2 files: a 1, b 0, c 1, rescore 0." in text
    assert (
        "| codex / new [xhigh] | 0.200 | incorrect 0.000 | c: wrong inside their contract at (no shape recorded): "
        "3 of 10 elements | near miss, only on unseen shapes: 3 of 10 elements |"
    ) in text
    assert "| codex / b [xhigh] | failed | passed 0.100 | a: passes our full contract |  |" in text
    assert "/ old " not in text  # newest per file


def test_the_report_names_the_gpu_of_a_run_not_measured_on_an_h100_sxm_and_never_converts_its_fraction(tmp_path):
    from harnesses.kernelbench.report import report

    def result(name, sha, hardware, label, ours):
        agent = {
            "harness": "codex",
            "model": name,
            "effort": "xhigh",
            "rescored_from": "kernelbench.com",
            "source": {"sha256": sha},
            "published": {"correct": True, "peak_fraction": 0.07},
        }
        return {
            "agent": agent,
            "problem": {"name": "moe_swiglu"},
            "status": "passed",
            "score": {"fraction": ours},
            "hardware": {"peak": {"key": hardware, "label": label}},
            "systems": [{"status": "passed", "failure": None}],
        }

    for hardware, run_id, data in [
        ("h100_sxm", "20260101T000000Z-a", result("sxm", "s1", "h100_sxm", "H100 SXM", 0.5)),
        ("h200_sxm", "20260101T000001Z-b", result("h200", "s2", "h200_sxm", "H200 SXM", 0.621)),
        # The same file scored again later on an H100 SXM: the later run wins though its folder sorts first.
        ("h200_sxm", "20260101T000002Z-c", result("first", "s3", "h200_sxm", "H200 SXM", 0.3)),
        ("h100_sxm", "20260101T000003Z-c", result("again", "s3", "h100_sxm", "H100 SXM", 0.4)),
    ]:
        (tmp_path / hardware).mkdir(exist_ok=True)
        (tmp_path / hardware / f"{run_id}.json").write_text(json.dumps(data))
    text = report(tmp_path)
    assert (
        "3 scored (1 on H200 SXM); of their 3 passes, 3 pass here (the code they timed); their passes not "
        "passed here: none (all 3 files: none)." in text
    )
    # As measured, of the H200's peaks; theirs beside it recomputed with our MoE work formula (x top-k).
    passed = "a: passes our full contract |  |"
    assert f"| codex / h200 [xhigh] | 0.070 (0.444 with our formula) | passed 0.621 (H200 SXM) | {passed}" in text
    assert f"| codex / sxm [xhigh] | 0.070 (0.444 with our formula) | passed 0.500 | {passed}" in text
    assert f"| codex / again [xhigh] | 0.070 (0.444 with our formula) | passed 0.400 | {passed}" in text
    assert "/ first " not in text
    assert "H100 SXM unless named" in text


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"  # exited, not yet reaped
    except (FileNotFoundError, ProcessLookupError):
        return True


def _descendant_workers(ancestor: int) -> set[int]:
    """Host PIDs of `scoring.worker` processes below `ancestor` (the worker runs in a PID namespace of its own,
    so it cannot say its host PID itself)."""
    parents, workers = {}, set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if b"scoring.worker" in (stat.parent / "cmdline").read_bytes():
                workers.add(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue

    def below(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == ancestor:
                return True
        return False

    return {pid for pid in workers if below(pid)}


def test_a_run_past_its_deadline_is_killed_with_its_workers_and_keeps_its_log(tmp_path, adapters):
    """A scorer still running at the deadline is cut off: it and the worker it started in a session of its own
    are killed (they would hold the GPU through the next run), and score.log keeps what it wrote."""
    clone = make_clone(tmp_path / "clone", RUNS[:1])
    out, results = tmp_path / "out", tmp_path / "results"
    config = importer.parse(
        importer.ImportConfig, [f"path={clone}", f"out={out}", f"results={results}", "device=cpu"], "t"
    )
    assert importer.run_import(config, echo=lambda text, **_: None) == 0
    folder = out / "fp8_gemm" / RUNS[0][4]
    (folder / "solution.py").write_text("import time\nwhile True:\n    time.sleep(1)\n")
    workers: set[int] = set()  # the scoring workers this test's scorer started, seen while it ran
    outcomes: list = []
    scoring = threading.Thread(
        target=lambda: outcomes.append(schedule.score_folder(config, folder, "fp8_gemm", limit_s=20))
    )
    scoring.start()
    while scoring.is_alive():
        workers |= _descendant_workers(os.getpid())
        time.sleep(0.2)
    code, outcome = outcomes[0]
    assert outcome.startswith("not scored: cut off after 2") and "(the deadline)" in outcome, outcome
    assert workers, (folder / "score.log").read_text()  # the worker had imported the hanging file
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all(_gone(pid) for pid in workers)
    assert (folder / "score.log").read_text().startswith("$ ")
    # The next call knows it needs more than it ran: its problem's guess (no run yet: unknown_run_s, 120 s,
    # x1.25 + 15 s = 165 s) plus the 20 s it was cut off after, so it is started first and not late.
    assert schedule.cut_off_s(folder) >= 20
    entry = {"problem": "fp8_gemm", "folder": f"fp8_gemm/{RUNS[0][4]}"}
    assert schedule.expected_run_s(config, {}, entry) == pytest.approx(165 + schedule.cut_off_s(folder))


# ---- CUTLASS where the published files look for it (issue 33) ----
# How three published files find CUTLASS (their lines, as published at c7d9221): kinetic-0715's w4a16,
# kinetic-0715[1m]'s fp8 and moe. Each builds its CUTLASS path only from a folder beside itself.
LOOKUPS = {
    "./cutlass_src": 'here = pathlib.Path(__file__).resolve().parent\nextra_include_paths=[\n'
    '    str(here / "cutlass_src" / "include"),\n    str(here / "cutlass_src" / "tools" / "util" / "include"),\n]\n',
    "./cutlass_3.9": '_HERE = os.path.dirname(os.path.abspath(__file__))\n_CUTLASS_DIR = os.path.join(_HERE, "cutlass_3.9")\n',
    "./third_party/cutlass": '_HERE = os.path.dirname(os.path.abspath(__file__))\n'
    '        cutlass = os.path.join(_HERE, "third_party", "cutlass")\n',
}


def cutlass_tree(root: Path) -> Path:
    (root / "include" / "cutlass").mkdir(parents=True)
    (root / "include" / "cutlass" / "cutlass.h").write_text("// CUTLASS\n")
    (root / "include" / "cutlass" / "version.h").write_text(
        "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 2\n#define CUTLASS_PATCH 0\n"
    )
    return root


@pytest.mark.parametrize("folder", list(LOOKUPS))
def test_the_folder_a_published_file_looks_in_is_found_in_its_text(folder):
    from harnesses.kernelbench.fallbacks import cutlass_folders_in

    assert cutlass_folders_in(LOOKUPS[folder]) == [folder]
    assert cutlass_folders_in('os.path.join(_HERE, "fp8_gemm_cutlass.cu")') == []  # a source file, not a tree


@pytest.mark.parametrize("folder", list(LOOKUPS))
def test_cutlass_is_offered_where_each_published_file_looks(tmp_path, folder):
    tree = cutlass_tree(tmp_path / "cutlass-4.2.0")
    run = tmp_path / "run"
    run.mkdir()
    (run / f"{layout.AGENT_MODULE}.py").write_text(LOOKUPS[folder])
    env = {}
    record = cutlass_offer.offer_cutlass(tree, run, env)
    # Every folder the published files use resolves to the tree, as their workspaces held one there.
    for relative in ("cutlass", "cutlass_src", "cutlass_3.9", "third_party/cutlass"):
        assert (run / relative / "include" / "cutlass" / "cutlass.h").is_file(), relative
        assert (run / relative).resolve() == tree.resolve()
    assert record["cutlass_looked_for"] == [folder] and folder in record["cutlass"]
    assert record["cutlass"].startswith("CUTLASS 4.2.0 source tree, offered at ./cutlass, ./cutlass_src")
    assert env["CUTLASS_INCLUDE"] == str(tree.resolve() / "include")


def test_a_tree_without_cutlass_h_is_refused_with_the_fix(tmp_path):
    with pytest.raises(OptionError, match="no include/cutlass/cutlass.h there; give a CUTLASS source tree"):
        cutlass_offer.offer_cutlass(tmp_path, tmp_path, {})


# A published file that builds beside itself, as kinetic-0715[1m]'s fp8 and moe do (os.makedirs(_HERE/"build"),
# then cpp_extension.load(build_directory=...)); its import says what it could write and where CUTLASS was.
BUILDS_BESIDE_ITSELF = '''import os
_HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(_HERE, "build"), exist_ok=True)
with open(os.path.join(_HERE, "build", "built"), "w") as f:
    f.write(str(os.path.isfile(os.path.join(_HERE, "cutlass_3.9", "include", "cutlass", "cutlass.h"))))
os.makedirs(os.path.join(os.environ["TORCH_EXTENSIONS_DIR"], "ext"), exist_ok=True)


def run(state, **inputs):
    raise RuntimeError("not a solution: this test looks at its import only")
'''


def test_a_runs_build_beside_its_file_can_write_in_the_sandboxed_worker(tmp_path, adapters, monkeypatch):
    """The worker's sandbox leaves the repository read-only (scoring/sandbox.py); their builds write beside their
    file, and one that could not fell back to its Triton path in silence. The scorer gets a copy of the folder
    that is the worker's writable cache folder, CUTLASS offered in it; the imported folder stays as it was."""
    from scoring import sandbox

    clone = make_clone(tmp_path / "clone", RUNS[:1])
    out, results = tmp_path / "out", tmp_path / "results"
    tree = cutlass_tree(tmp_path / "cutlass-4.2.0")
    config = importer.parse(
        importer.ImportConfig,
        [f"path={clone}", f"out={out}", f"results={results}", "device=cpu", f"cutlass={tree}"],
        "t",
    )
    assert importer.run_import(config, echo=lambda text, **_: None) == 0
    folder = out / "fp8_gemm" / RUNS[0][4]
    (folder / "solution.py").write_text(BUILDS_BESIDE_ITSELF)
    schedule.score_folder(config, folder, "fp8_gemm", limit_s=120)
    workspaces = list((out / schedule.WORKSPACES / folder.name).iterdir())
    assert len(workspaces) == 1
    workspace = workspaces[0]
    # The copy is the folder the worker may write: the sandbox's cache folder for this solution file.
    monkeypatch.setenv("CEILING_WORKER_CACHE", str(workspace.parent))
    assert sandbox.cache_folder(workspace / "solution.py") == workspace
    log = (folder / "score.log").read_text()
    result = json.loads(next(results.glob("*/*.json")).read_text())
    if sandbox.why_not_available() is None:  # the worker ran sandboxed, the repository read-only to it
        assert result["systems"][0]["timer"]["sandbox"]["repository_writable"] is False
    assert (workspace / "build" / "built").read_text() == "True", log
    assert (workspace / "torch_extensions" / "ext").is_dir(), log
    assert not (folder / "build").exists() and not (folder / "cutlass_3.9").exists()
    agent = json.loads((folder / "agent.json").read_text())
    assert "workspace" in agent["environment"] and "./cutlass_3.9" in agent["environment"]["cutlass"]
    assert f"solution={workspace / 'solution.py'}" in log.splitlines()[0]
