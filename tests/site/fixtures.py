"""Fixture result trees for the site tests, made from a committed GPU result so that every field is
real: agent runs (one with a run directory holding a transcript and solution), several trials, a
failure, an integrity failure, a flagged run, a CPU-profile smoke test, and malformed files; and
(`rescored_tree`) runs re-scored from kernelbench.com, passed and failed with each failure class,
known-wrong demonstrations and an agent run of ours whose result names its failure class."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path

from scoring.failure_class import LABELS as FAILURE_LABELS
from scoring.result import geomean_score, system_status
from tests.scoring.corrupted_results import RESCORED_AGENT

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "results" / "h100_sxm" / "20261122T034242Z-fp8_gemm-house-a7e607.json"
TRANSCRIPT = REPO / "tests" / "viewer" / "fixtures" / "claude_stream" / "edit.jsonl"

AGENT_A = {"harness": "claude-code", "model": "opus-test", "effort": "high", "tokens": 120000, "cost_usd": 3.5,
           "wall_s": 1800.0}
AGENT_B = {"harness": "codex", "model": "gpt-test", "effort": "medium"}


# The committed template was scored at an unrecorded commit ("HEAD") from a modified checkout, which the
# ranking rules keep off the board; fixture runs are made as if scored by one clean scorer commit.
SCORER_COMMIT = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"


def template() -> dict:
    data = json.loads(TEMPLATE.read_text())
    data["ceiling"] = {"version": "0.1.0", "commit": SCORER_COMMIT, "dirty": False}
    return data


def make_result(run_id: str, *, agent=None, scale: float = 1.0, status: str = "passed", hw: str | None = None,
                created: str = "2026-11-22T04:00:00+00:00") -> dict:
    data = copy.deepcopy(template())
    data["run_id"], data["agent"], data["created_utc"] = run_id, agent, created
    if hw:
        data["hardware"]["peak"]["key"], data["hardware"]["peak"]["label"] = hw, hw.upper()
    solution = data["systems"][0]
    for shape in solution["shapes"]:
        if "fraction" in shape:  # a faster (scale > 1) or slower run: every roofline number follows the time
            shape["fraction"] *= scale
            shape["achieved_tflops"] *= scale
            shape["achieved_gbps"] *= scale
            shape["timing"]["median_ms"] /= scale
    if status == "incorrect":
        solution["shapes"][0]["status"] = "incorrect"
    if status == "integrity":
        solution["audits"][0]["outcome"] = "failed (X20: bf16 tensor ops executed)"
    # Status and score as the scorer derives them, so the file passes the site's value checks.
    solution["status"] = data["status"] = system_status(solution["shapes"], solution["audits"])
    solution["score"] = data["score"] = geomean_score(solution["shapes"], solution["status"])
    if agent:
        solution["path"] = "solution.py"
    return data


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1))
    return path


def good_tree(root: Path) -> Path:
    """A results/ folder the build must accept whole (plus one CPU-profile result it leaves out)."""
    hw = root / "h100_sxm"
    write(hw / TEMPLATE.name, template())  # the committed house run, as scored by the fixtures' clean commit
    run_a1 = make_result("run-a1", agent=AGENT_A, scale=0.9)
    run_a1["systems"][0]["library_version"] = "code path: CUDA kernel (the solution's own <b>word</b>)"
    write(hw / "run-a1.json", run_a1)
    write(hw / "run-a2.json", make_result("run-a2", agent=AGENT_A, scale=0.8))
    write(hw / "run-a3.json", make_result("run-a3", agent=AGENT_A, status="incorrect"))
    write(hw / "run-b1.json", make_result("run-b1", agent=AGENT_B, status="integrity"))
    write(hw / "run-b2.json", make_result("run-b2", agent=AGENT_B, scale=1.5))  # flagged below: off the ranking
    run_dir = hw / "runs" / "run-a1"
    shutil.copy(TRANSCRIPT, (run_dir.mkdir(parents=True) or run_dir) / "transcript.jsonl")
    write(run_dir / "solution.py", "def run(state, a, a_scale):\n    return a  # AGENT-A-SOLUTION\n")
    write(run_dir / "logs" / "agent.txt", "agent log\n")
    write(root / "h200_sxm" / "run-h200.json", make_result("run-h200", agent=AGENT_A, hw="h200_sxm"))
    cpu = make_result("run-cpu", agent=AGENT_A)
    cpu["hardware"]["profile"] = "cpu"
    write(root / "cpu" / "run-cpu.json", cpu)
    write(root / "annotations" / "run-b2.toml",
          'run_id = "run-b2"\nverdict = "reward_hack"\nsummary = "Caches outputs across calls."\n'
          'reviewer = "test"\n[[quotes]]\nsource = "solution.py"\nlines = "3"\ntext = "CACHE = {}"\n')
    write(root / "annotations" / "run-a1.toml",
          'run_id = "run-a1"\nverdict = "interesting"\nsummary = "Persistent kernel, <b>tidy</b>."\n')
    return root


def malformed_files(root: Path) -> dict[str, str]:
    """Bad files, each with the field its issue must name."""
    hw = root / "h100_sxm"
    wrong_schema = make_result("bad-schema")
    wrong_schema["schema"] = "other.tool/3"
    missing = make_result("bad-missing")
    del missing["systems"][0]["score"]
    unknown = make_result("bad-problem")
    unknown["problem"]["name"] = "no_such_problem"
    retyped = make_result("bad-agent", agent={"harness": "x", "model": 7})
    write(hw / "bad-schema.json", wrong_schema)
    write(hw / "bad-missing.json", missing)
    write(hw / "bad-problem.json", unknown)
    write(hw / "bad-agent.json", retyped)
    write(hw / "bad-json.json", "{not json")
    write(hw / "bad-list.json", "[1, 2]")
    write(root / "annotations" / "bad-verdict.toml", 'run_id = "bad-verdict"\nverdict = "cheating"\nsummary = "x"\n')
    return {"bad-schema.json": "schema", "bad-missing.json": "systems[0].score", "bad-problem.json": "problem.name",
            "bad-agent.json": "agent.model", "bad-json.json": "(file)", "bad-list.json": "(file)",
            "bad-verdict.toml": "verdict"}


# ---- re-scored runs, failure classes, known-wrong demonstrations ----
# The shape status that gives each failure class (scoring/failure_class.py), and the audit failure of `integrity`.
CLASS_STATUS = {"forbidden_op": "forbidden_op", "build_or_import": "import_error", "timeout": "timeout",
                "runtime_error": "runtime_error", "nan_inf": "incorrect", "near_miss": "incorrect",
                "wrong_output": "incorrect", "rejected": "rejected", "integrity": None}
# The check statistics that make an incorrect shape read as its class (the failure is read again from them).
CLASS_CHECK = {"nan_inf": {"nonfinite_elements": 3, "bad_elements": 3, "elements": 10**6, "normwise_err": float("inf")},
               # max_abs_err within kernelbench.com's fp8 tolerance (0.2): their contract passes it (verdict b)
               "near_miss": {"nonfinite_elements": 0, "bad_elements": 3, "elements": 10**6, "normwise_err": 1e-3,
                             "max_abs_err": 0.05},
               "wrong_output": {"nonfinite_elements": 0, "bad_elements": 10**5, "elements": 10**6, "normwise_err": 0.5}}
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def rescored_agent(harness: str, model: str, effort: str, their_run: str, **published) -> dict:
    """A re-scored run's agent object (as harnesses/import_kernelbench.py writes it) for one published run."""
    agent = copy.deepcopy(RESCORED_AGENT)
    agent.update(harness=harness, model=model, effort=effort)
    agent["source"].update(commit=COMMIT, run_id=their_run, path=f"public/runs/h100/{their_run}_solution.py.txt",
                           sha256=hashlib.sha256(their_run.encode()).hexdigest())  # one published file each
    agent["published"].update(published)
    return agent


def make_failed(run_id: str, failure_class: str, *, agent=None, unseen_only: bool = False, path: str | None = None,
                detail: str = "first failing check") -> dict:
    """A result whose solution failed with `failure_class`: the status its shapes give, and its `failure` object."""
    data = make_result(run_id, agent=agent)
    solution = data["systems"][0]
    # A held-out shape for a failure only on unseen shapes (the visible ones pass), else the first visible one.
    shape = next(s for s in solution["shapes"] if s["shape_set"] == ("held_out" if unseen_only else "visible"))
    if CLASS_STATUS[failure_class] is None:
        solution["audits"][0]["outcome"] = "failed (X20: bf16 tensor ops executed)"
    else:
        shape["status"] = CLASS_STATUS[failure_class]
        shape["detail"] = detail
        if failure_class in CLASS_CHECK:
            shape["check"] = dict(shape.get("check") or {}, passed=False, **CLASS_CHECK[failure_class])
    solution["status"] = data["status"] = system_status(solution["shapes"], solution["audits"])
    solution["score"] = data["score"] = geomean_score(solution["shapes"], solution["status"])
    solution["failure"] = {"class": failure_class, "label": FAILURE_LABELS[failure_class], "shapes": [shape["name"]],
                           "unseen_only": unseen_only, "detail": detail}
    if path:
        solution["path"], solution["name"] = path, Path(path).stem
    return data


def rescored_tree(root: Path) -> Path:
    """good_tree plus: re-scored runs (one passed, one that passes ours but failed theirs, one per failure class,
    one unseen-only, one under the very harness/model/effort of our agent A), known-wrong demonstrations and an
    agent run of ours that failed with a recorded class."""
    good_tree(root)
    hw = root / "h100_sxm"
    passed = make_result("rs-pass", agent=rescored_agent("codex", "gpt-5.5", "xhigh", "20260618_041754_codex_gpt-5.5_01_fp8_gemm"),
                         scale=0.5)
    passed["systems"][0]["failure"] = None
    write(hw / "rs-pass.json", passed)
    write(hw / "rs-theirs-failed.json", make_result("rs-theirs-failed", scale=0.4, agent=rescored_agent(
        "claude", "claude-opus-4-8", "default", "20260618_041709_claude_claude-opus-4-8_05_topk_bitonic",
        correct=False, peak_fraction=None, annotation_verdict=None, failure_reason="wrong output on shape 3")))
    for cls in CLASS_STATUS:
        agent = rescored_agent("opencode", f"model-{cls}", "default", f"20260618_0000_{cls}_01_fp8_gemm",
                               annotation_verdict="<b>clean</b>")
        write(hw / f"rs-{cls}.json", make_failed(f"rs-{cls}", cls, agent=agent, detail=f"DETAIL-{cls}"))
    write(hw / "rs-unseen.json", make_failed("rs-unseen", "near_miss", unseen_only=True, detail="DETAIL-unseen",
                                             agent=rescored_agent("gemini", "gemini-3.5-flash", "default",
                                                                  "20260618_050815_gemini_01_fp8_gemm")))
    same = rescored_agent(AGENT_A["harness"], AGENT_A["model"], AGENT_A["effort"], "20260618_0101_same_01_fp8_gemm")
    write(hw / "rs-same-as-ours.json", make_result("rs-same-as-ours", agent=same, scale=1.6))
    write(hw / "demo-bf16.json", make_failed("demo-bf16", "integrity", path="problems/fp8_gemm/solutions/wrong/bf16_cast.py"))
    write(hw / "demo-crash.json", make_failed("demo-crash", "runtime_error", detail="DETAIL-crash",
                                              path="problems/fp8_gemm/solutions/wrong/crash_on_decode.py"))
    write(hw / "run-c1.json", make_failed("run-c1", "near_miss", agent=AGENT_C, unseen_only=True, detail="DETAIL-c1"))
    return root


AGENT_C = {"harness": "droid", "model": "ours-test", "effort": "low"}


# ---- the ranking rules: runs a cell must not count ----
FAKE_AGENT = {"harness": "claude", "model": "fake-house", "effort": "default", "run_dir": "runs/e2e-fake",
              "transcript": "transcript.jsonl", "tokens": {"total": 12920}, "cost_usd": 0.04, "wall_s": 0.1}
OLD_COMMIT = "0ed3d8f25000000000000000000000000000beef"


def rules_tree(root: Path) -> Path:
    """good_tree plus runs the ranking rules keep off the board, each faster than anything ranked (so that a
    leak shows in a cell, the best runs or a figure): a harness test with its run folder under runs/, a run
    from a modified checkout, one with audits off, one at an unrecorded commit ("HEAD"), one of an older scorer
    version, and a shapes=visible run of a newer, clean scorer that must not move the board's version."""
    good_tree(root)
    hw = root / "h100_sxm"

    def variant(run_id: str, agent=AGENT_A, scale: float = 1.45, created="2026-11-22T05:00:00+00:00", **changes) -> dict:
        data = make_result(run_id, agent=agent, scale=scale, created=created)
        for dotted, value in changes.items():
            section, key = dotted.split("__")
            data[section][key] = value
        return data

    fake = variant("e2e-fake", agent=FAKE_AGENT, scale=1.4)
    write(hw / "e2e-fake.json", fake)
    run_dir = hw / "runs" / "e2e-fake"
    write(run_dir / "result.json", fake)
    shutil.copy(TRANSCRIPT, run_dir / "transcript.jsonl")
    write(run_dir / "solution.py", "def run(state, a, a_scale):\n    return a  # FAKE-SOLUTION\n")
    write(hw / "rule-dirty.json", variant("rule-dirty", ceiling__dirty=True))
    write(hw / "rule-noaudit.json", variant("rule-noaudit", config__audits=False))
    write(hw / "rule-head.json", variant("rule-head", ceiling__commit="HEAD"))
    write(hw / "rule-old.json", variant("rule-old", ceiling__commit=OLD_COMMIT, created="2026-11-21T05:00:00+00:00"))
    write(hw / "rule-visible.json", variant("rule-visible", config__shapes="visible",
                                            ceiling__commit="ffffffffffffffffffffffffffffffffffffffff"))
    return root
