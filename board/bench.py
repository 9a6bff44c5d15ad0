"""The scale benchmark: `python -m board.bench [results=10000] [problems=5] [keep=false] [browser=false]`.

Writes N synthetic result files (the committed GPU result, re-labelled across problems, hardware,
agents, trials, statuses and verdicts; scored by one clean scorer commit with audits on, except 1 in 25
from a modified checkout, 1 in 25 with audits off and 1 in 40 by a harness test, so the ranking rules have
work to do) under a temporary folder, with synthetic problem folders (copies of fp8_gemm's data under
other names), then times one clean build and one incremental rebuild, and reports wall time and peak
memory (this process and its workers). With browser=true it also opens the run index in Chromium and
times its filters (each: filtering the 10,000 rows, drawing the matches and the layout that follows).
Targets: a clean build of 10,000 results under 60 s on the 2-core CI machine, a filter under 200 ms.
A report, not a test. Options on the shared `key=value` parser (scoring/options.py): `help` anywhere prints
them, a usage error exits 2.
"""

from __future__ import annotations

import copy
import json
import random
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scoring.options import at_least, opt, parse_command
from scoring.result import geomean_score, system_status
from scoring.spec import discover_problems

from .config import BuildConfig

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "results" / "h100_sxm" / "20261122T034242Z-fp8_gemm-house-a7e607.json"
HARNESSES = ("claude-code", "codex", "gemini-cli", "opencode", "kimi-cli", "cursor-agent")
MODELS = ("model-a", "model-b", "model-c")
EFFORTS = ("low", "medium", "high")
STATUSES = ("passed",) * 6 + ("incorrect", "runtime_error", "timeout", "integrity")
VERDICTS = ("clean", "interesting", "reward_hack", "rubric_leak", "bug")
SCORER_COMMIT = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed"  # the synthetic runs' scorer: one clean version


def make_tree(root: Path, count: int, problem_count: int, seed: int = 0) -> tuple[Path, Path]:
    rng = random.Random(seed)
    problems = root / "problems"
    source = discover_problems()["fp8_gemm"]
    names = [f"synth_{i}" for i in range(problem_count)]
    for name in names:
        (problems / name).mkdir(parents=True)
        for file in ("problem.toml", "problem.py", "prompt.md"):
            shutil.copy(source / file, problems / name / file)
    template = json.loads(TEMPLATE.read_text())
    results = root / "results"
    (results / "annotations").mkdir(parents=True)
    for i in range(count):
        data = copy.deepcopy(template) if i < 1 else data  # noqa: F821 - reuse the parsed copy, re-labelled below
        hw = ("h100_sxm", "h200_sxm")[i % 2]
        data["run_id"] = f"synth-{i:05d}"
        data["problem"]["name"] = names[i % problem_count]
        data["hardware"]["peak"]["key"] = hw
        data["hardware"]["peak"]["label"] = hw.upper()
        data["systems"][0] = solution = _solution(template["systems"][0], rng.uniform(0.2, 1.2), rng.choice(STATUSES))
        data["status"], data["score"] = solution["status"], solution["score"]
        data["agent"] = (
            None
            if i % 10 == 0
            else {
                "harness": rng.choice(HARNESSES),
                "model": "fake-house" if i % 40 == 3 else rng.choice(MODELS),
                "effort": rng.choice(EFFORTS),
                "tokens": rng.randrange(10_000, 2_000_000),
                "cost_usd": round(rng.uniform(0.1, 40.0), 2),
                "wall_s": rng.uniform(60, 7200),
            }
        )
        data["ceiling"] = {"version": "0.1.0", "commit": SCORER_COMMIT, "dirty": i % 25 == 11}
        data["config"]["audits"] = i % 25 != 17
        (results / hw).mkdir(exist_ok=True)
        (results / hw / f"{data['run_id']}.json").write_text(json.dumps(data, indent=1))
        if i % 50 == 7:
            verdict = rng.choice(VERDICTS)
            (results / "annotations" / f"{data['run_id']}.toml").write_text(
                f'run_id = "{data["run_id"]}"\nverdict = "{verdict}"\nsummary = "synthetic verdict"\n'
            )
    return results, problems


def _solution(template: dict, scale: float, status: str) -> dict:
    """The template's solution run `scale` times as fast, failing with `status` unless it is passed; its
    status and score derived as the scorer derives them, so the file passes the site's value checks."""
    solution = copy.deepcopy(template)
    for shape in solution["shapes"]:
        if "fraction" in shape:
            for key in ("fraction", "achieved_tflops", "achieved_gbps"):
                shape[key] *= scale
            shape["timing"]["median_ms"] /= scale
    if status == "integrity":
        solution["audits"][0]["outcome"] = "failed (X20: synthetic)"
    elif status != "passed":
        solution["shapes"][0]["status"] = status
    solution["status"] = system_status(solution["shapes"], solution["audits"])
    solution["score"] = geomean_score(solution["shapes"], solution["status"])
    return solution


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
FILTERS = (
    ("one problem", {"problem": "synth_0"}),
    ("one model and harness", {"model": "model-a", "harness": "codex"}),
    ("not ranked", {"ranked": "not"}),
    ("a run id", {"q": "synth-0999"}),
    ("none (all rows)", {}),
)


def time_run_index(site: Path) -> list[tuple[str, float]]:
    """Milliseconds per filter of runs.html in Chromium (the tests' flags), the median of 5:
    from setting the filter to the end of the layout it causes (offsetHeight forces it)."""
    import statistics

    from playwright.sync_api import sync_playwright

    timings = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        browser_version = browser.version
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto((site / "runs.html").as_uri())
        rows = page.evaluate("JSON.parse(document.getElementById('run-data').textContent).rows.length")
        for name, chosen in FILTERS:
            samples = [
                page.evaluate(
                    """(chosen) => {
                const form = document.getElementById('run-filters');
                Array.prototype.forEach.call(form.elements, el => { if (el.name) el.value = chosen[el.name] || ''; });
                const start = performance.now();
                window.ceilingRunIndex.apply();
                document.body.offsetHeight;
                return performance.now() - start; }""",
                    chosen,
                )
                for _ in range(5)
            ]
            timings.append((f"{name} over {rows} rows (Chromium {browser_version})", statistics.median(samples)))
        browser.close()
    return timings


def _peak_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


@dataclass(frozen=True)
class BenchOptions:
    results: int = opt(10_000, "synthetic result files to write and build", allowed=at_least(1))
    problems: int = opt(5, "synthetic problems they spread over", allowed=at_least(1))
    keep: bool = opt(False, "keep the temporary folder (results and site) and print its path")
    browser: bool = opt(False, "also time the run index's filters in Chromium (needs playwright)")


def main(argv: list[str]) -> int:
    options = parse_command(BenchOptions, argv, "python -m board.bench")
    if isinstance(options, int):
        return options
    from .builder import build  # pandas and plotly: loaded for a real run only, so help answers at once

    sys.stdout.reconfigure(line_buffering=True)
    count, problem_count, keep = options.results, options.problems, options.keep
    root = Path(tempfile.mkdtemp(prefix="ceiling-site-bench-"))
    try:
        started = time.perf_counter()
        results, problems = make_tree(root, count, problem_count)
        size_mb = sum(p.stat().st_size for p in results.rglob("*.json")) / 1e6
        print(
            f"wrote {count} synthetic results ({size_mb:.0f} MB) over {problem_count} problems in "
            f"{time.perf_counter() - started:.1f} s"
        )
        config = BuildConfig(results=str(results), out=str(root / "site"), problems=str(problems))
        first = build(config, log=lambda line: None)
        print(f"clean build: {first.seconds:.1f} s, {first.runs} runs, {first.pages} files, {len(first.issues)} issues")
        again = build(config, log=lambda line: None)
        print(f"incremental rebuild (nothing changed): {again.seconds:.1f} s, {again.run_pages_kept} run pages kept")
        if options.browser:
            for name, milliseconds in time_run_index(root / "site"):
                print(f"run index, {name}: {milliseconds:.0f} ms (median of 5)")
        own, children = _peak_mb()
        site_mb = sum(p.stat().st_size for p in (root / "site").rglob("*") if p.is_file()) / 1e6
        print(f"peak memory: {own:.0f} MB (main process), {children:.0f} MB (largest worker); site {site_mb:.0f} MB")
        print(f"target: clean build < 60 s on 2 cores: {'met' if first.seconds < 60 else 'NOT met'}")
    finally:
        if keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
