"""`build(config)`: results/ -> site/, in one pass.

Order: problems and result files are loaded and validated (issues reported, skipped, or fatal in
strict mode); pandas tables and the per-hardware boards are computed; run pages are rendered (in
worker processes, and kept from the previous build when their inputs are unchanged); then problem,
agent, leaderboard, list, methodology and download pages. Files a previous build wrote that this one
did not are removed (only those: output.py keeps the manifest and refuses folders it must not own), so a
rebuild never serves a page for a run that is gone and never touches a file it did not write.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import hashlib
import json
import multiprocessing
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd

from scoring.failure_class import reread_failure, tolerance_normwise

from . import figures
from .code import markdown
from .colors import palette
from .downloads import RunDownload, run_download, write_downloads
from .facts import collect_facts
from .frame import RANKED_KINDS, build_frames, newest_per_published_file, row_identity
from .issues import BuildError, Issue
from .annotations import load_annotations
from .load import Run, add_run, orphan_annotations, read_result, result_files, slim
from .output import check_output, prune, read_manifest, write_manifest, write_text
from .pages import PACKAGE, copy_assets, environment
from .problem_info import load_problems
from .provenance import failure_label, rescored
from .rescored_judgement import judge
from .public_text import error_body, error_line, relative_paths, scrub
from .rank import annotate, build_boards
from .run_index import SOURCES, effort_figures, filter_options, index_json, models, run_records
from .run_info import RunFacts, solution_source, write_transcript

REPO = PACKAGE.parent


@dataclass(frozen=True)
class BuildReport:
    out: Path
    runs: int
    pages: int
    run_pages_rendered: int
    run_pages_kept: int
    issues: tuple[Issue, ...]
    cpu_skipped: int
    seconds: float
    invalid_results: int = 0  # result files that failed scoring/result_checks.py: skipped, never shown


def code_version() -> str:
    """Hash of the site and viewer code: a change to either re-renders every run page."""
    digest = hashlib.sha256()
    for path in sorted([*PACKAGE.rglob("*"), *(REPO / "viewer").rglob("*")]):
        if path.is_file() and path.suffix in (".py", ".j2", ".css", ".js") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _dir_signature(folder: Path | None) -> list:
    if folder is None:
        return []
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()
    )


def _run_key(run: Run, version: str, transcripts: bool) -> str:
    annotation = Path(run.annotation.file).read_bytes().hex() if run.annotation else ""
    solution = REPO / (run.data["systems"][0].get("path") or "-")
    solution_stat = [solution.stat().st_size, solution.stat().st_mtime_ns] if solution.is_file() else []
    payload = json.dumps(
        [run.digest, annotation, _dir_signature(run.run_dir), solution_stat, version, transcripts, str(run.path)]
    )
    return hashlib.sha256(payload.encode()).hexdigest()


# ---- reading files and rendering run pages, in worker processes (the job is inherited through fork) ----
_JOB: dict = {}


@dataclass(frozen=True)
class FileOutcome:
    path: Path
    issues: tuple[Issue, ...]
    is_cpu: bool
    run: Run | None  # with the slim data only
    key: str
    facts: dict | None
    rendered: bool
    download: RunDownload | None  # the run's share of downloads/, encoded here rather than in the main process


def _process_file(path: Path) -> FileOutcome:
    """Read and validate one result file; render its run page unless the previous build's is current."""
    job = _JOB
    run, issues, is_cpu = read_result(path, job["results"], job["known"], job["annotations"], job["cpu"])
    if run is None:
        return FileOutcome(path, tuple(issues), is_cpu, None, "", None, False, None)
    key = _run_key(run, job["version"], job["transcripts"])
    if not job.get("render", True):  # strict mode's first pass: validate only
        return FileOutcome(path, (), False, replace(run, data={"run_id": run.run_id}), key, None, False, None)
    old = job["previous"].get(run.run_id)
    page = job["out"] / "run" / f"{run.run_id}.html"
    if (
        job["incremental"]
        and old
        and old.get("key") == key
        and page.exists()
        and (not old["facts"]["transcript_page"] or (page.parent / old["facts"]["transcript_page"]).exists())
    ):
        facts, rendered = old["facts"], False
    else:
        facts, rendered = _render_run(run), True
    slim_run = replace(run, data=slim(run.data))
    download = run_download(slim_run)
    # A re-scored run's verdict reads per-shape check statistics that the slim data drops: judged here.
    judgement = judge(run.data)
    if judgement is not None:
        slim_run = replace(slim_run, data=dict(slim_run.data, judgement=judgement))
    return FileOutcome(path, (), False, slim_run, key, facts, rendered, download)


def _cached_run_id(cached_from) -> str | None:
    """The run whose measurement a reference line reused (scoring/line_cache.py: `cached_from` is that
    result file, relative to the results root; its run page has the file's name)."""
    return Path(cached_from).stem if isinstance(cached_from, str) and cached_from else None


def _render_run(run: Run) -> dict:
    out: Path = _JOB["out"]
    if "env" not in _JOB:  # one environment per worker (setdefault would build a new one per page)
        _JOB["env"] = environment()
    env = _JOB["env"]
    if _JOB["transcripts"]:
        facts = write_transcript(run, REPO, out / "run" / f"{run.run_id}.transcript.html")
    else:
        facts = RunFacts(None, None, None, "", "")
    agent = run.data.get("agent") or {}
    if not facts.transcript_page and facts.tokens is None and agent:
        published = agent.get("published") if isinstance(agent.get("published"), dict) else {}
        # A re-scored run's agent metadata is what they published: output tokens and wall time of their run.
        tokens = agent.get("tokens") if isinstance(agent.get("tokens"), int) else published.get("output_tokens")
        wall_s = agent.get("wall_s") if agent.get("wall_s") is not None else published.get("elapsed_seconds")
        facts = RunFacts(
            tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
            agent.get("cost_usd"),
            wall_s if isinstance(wall_s, (int, float)) else None,
            "",
            facts.transcript_error,
        )
    public = scrub(run.data)  # the machine's absolute paths made relative (public_text.py)
    systems = []
    for i, system in enumerate(public["systems"]):
        _key, _kind, label, slug = row_identity(run, i, system)
        failure = reread_failure(system, tolerance_normwise(run.data.get("problem")))
        systems.append(
            dict(
                system,
                row_label=label,
                slug=slug,
                label=system.get("label") or system["name"],
                failure=failure,
                failure_label=failure_label(failure),
                cached_run_id=_cached_run_id(system.get("cached_from")),
                error_line=error_line(system.get("import_detail")),
                error_body=error_body(system.get("import_detail")),
                failure_line=error_line((failure or {}).get("detail")),
                failure_body=error_body((failure or {}).get("detail")),
            )
        )
    source, source_path, note = solution_source(run, REPO)
    facts = replace(facts, transcript_error=relative_paths(facts.transcript_error))
    try:
        result_rel = str(run.path.resolve().relative_to(REPO))
    except ValueError:
        result_rel = run.path.name
    html = env.get_template("run.html.j2").render(
        title=f"Run {run.run_id}",
        root="../",
        section="",
        code=True,
        plots=False,
        site=_JOB["site"],
        run=run,
        run_page=True,
        public=public,
        systems=systems,
        facts=facts,
        annotation=run.annotation,
        source=source,
        source_path=relative_paths(source_path),
        source_note=relative_paths(note),
        result_rel=result_rel,
        rescored=_judged(rescored(agent), run.data),
    )
    write_text(out / "run" / f"{run.run_id}.html", html)
    return asdict(facts)


def _judged(provenance, data: dict):
    """A re-scored run's provenance with its judgement (verdict, their numbers), or None for another run."""
    return replace(provenance, judgement=judge(data)) if provenance is not None else None


def _read_all(files: list[Path], config, job: dict) -> list[FileOutcome]:
    _JOB.clear()
    _JOB.update(job)
    jobs = config.jobs or os.cpu_count() or 1
    with _collector_paused():
        if len(files) > 64 and jobs > 1 and "fork" in multiprocessing.get_all_start_methods():
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                return list(pool.imap(_process_file, files, chunksize=max(1, min(64, len(files) // (jobs * 8)))))
        return [_process_file(path) for path in files]


@contextlib.contextmanager
def _collector_paused():
    """Keep Python's cyclic garbage collector off the loaded runs.

    10,000 loaded runs are millions of small dicts and lists that live until the build ends and form
    no cycles, yet every full collection walked them all (~4 s of the main process in the scale
    benchmark). The collector is paused while they arrive (objects unpickled from workers, or read
    here) and they are frozen (gc.freeze) once loaded; `build` unfreezes them when it ends. Freezing
    before the pool forks also keeps the workers' collections off the parent's objects.
    """
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def build(config, log=print) -> BuildReport:
    try:
        return _build(config, log)
    finally:
        gc.unfreeze()  # _read_all froze the loaded runs for the length of the build


def _build(config, log) -> BuildReport:
    started = time.perf_counter()
    results = Path(config.results)
    out = Path(config.out)
    if not results.is_dir():
        raise BuildError(f"results folder '{results}' does not exist; pass results=PATH")
    check_output(out, sources=(REPO, results))
    problems, issues = load_problems(Path(config.problems) if config.problems else None)
    annotations, annotation_issues = load_annotations(results / "annotations")
    issues += annotation_issues
    previous = read_manifest(out)
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    site = {"result_count": 0, "generated": generated}
    job = dict(
        results=results,
        known=set(problems),
        annotations=annotations,
        cpu=config.cpu,
        out=out,
        transcripts=config.transcripts,
        incremental=config.incremental,
        site=site,
        version=code_version(),
        previous=previous.get("runs") if isinstance(previous.get("runs"), dict) else {},
    )
    files = result_files(results)
    if config.strict:  # validate everything before writing anything: a bad file leaves the old site alone
        checked = _read_all(files, config, dict(job, render=False))
        bad = list(issues) + [i for o in checked for i in o.issues]
        seen: dict = {}
        for o in checked:
            if o.run is not None:
                add_run(seen, o.run, bad)
        bad += orphan_annotations(annotations, seen)
        if bad:
            for issue in bad:
                log(f"skipped: {issue}")
            raise _strict_failure(_invalid(checked), len(bad))
    out.mkdir(parents=True, exist_ok=True)
    outcomes = _read_all(files, config, job)
    kept: dict[str, Run] = {}
    facts: dict[str, dict] = {}
    downloads: dict[str, RunDownload] = {}
    manifest: dict[str, dict] = {}
    cpu_skipped, rendered, rerender = 0, 0, []
    for outcome in outcomes:
        issues += outcome.issues
        cpu_skipped += outcome.is_cpu
        if outcome.run is None:
            continue
        if add_run(kept, outcome.run, issues):
            facts[outcome.run.run_id] = outcome.facts
            downloads[outcome.run.run_id] = outcome.download
            manifest[outcome.run.run_id] = {"key": outcome.key, "facts": outcome.facts}
            rendered += outcome.rendered
        else:
            rerender.append(outcome.run.run_id)  # a duplicate may have overwritten the kept run's page
    for run_id in rerender:
        full = read_result(kept[run_id].path, results, set(problems), annotations, True)[0]
        facts[run_id] = manifest[run_id]["facts"] = _render_run(full)
    issues += orphan_annotations(annotations, kept)
    for issue in issues:
        log(f"skipped: {issue}")
    invalid = _invalid(outcomes)
    if config.strict and issues:
        raise _strict_failure(invalid, len(issues))
    runs = tuple(sorted(kept.values(), key=lambda r: r.run_id))
    if cpu_skipped:
        log(f"left out {cpu_skipped} CPU-profile result(s): smoke tests, not scores (cpu=true includes them)")
    site["result_count"] = len(runs)
    written: set[Path] = set(copy_assets(out))
    for run in runs:
        written.add(out / "run" / f"{run.run_id}.html")
        if facts[run.run_id]["transcript_page"]:
            written.add(out / "run" / facts[run.run_id]["transcript_page"])
    trials, shapes = build_frames(runs)
    trials = annotate(trials)  # each trial's reason not to be ranked, "" when its cell counts it
    boards = build_boards(trials) if runs else []
    # one colour per system on every page (colors.py)
    colours = palette(trials.loc[trials["row_kind"].isin(RANKED_KINDS), "row_key"]) if not trials.empty else {}
    provenance = {
        run.run_id: replace(p, judgement=run.data.get("judgement"))
        for run in runs
        if (p := rescored(run.data.get("agent"))) is not None
    }
    env = environment()
    notes = (
        [
            (
                f"{invalid} result file(s) skipped as invalid, never shown; {len(issues)} problem(s) in the input "
                "files (listed in the build log)."
            )
        ]
        if issues
        else []
    )
    if cpu_skipped:
        notes.append(f"{cpu_skipped} CPU-profile result(s) left out: smoke tests whose fractions are not scores.")

    def page(rel: str, template: str, **context) -> None:
        root = "../" * rel.count("/")
        html = env.get_template(template).render(root=root, site=site, **context)
        write_text(out / rel, html)
        written.add(out / rel)

    for i, board in enumerate(boards):
        context = dict(
            title=f"Leaderboard: {board.hw_label}",
            section="board",
            board=board,
            boards=boards,
            notes=notes,
            provenance=provenance,
            code=False,
            plots=False,
            colours=colours,
        )
        page(f"board/{board.hw}.html", "board.html.j2", **context)
        if i == 0:
            page("index.html", "board.html.j2", **context)
        if board.other_runs:
            page(
                f"board/{board.hw}-other.html",
                "other_runs.html.j2",
                title=f"Other runs: {board.hw_label}",
                section="board",
                board=board,
                code=False,
                plots=False,
            )
    if not boards:
        page("index.html", "lists.html.j2", title="No results yet", section="board", items=[], code=False, plots=False)
    _harness_test_page(page, trials)
    _problem_pages(page, problems, runs, trials, shapes, boards, provenance, colours)
    _agent_pages(page, trials, boards, facts, provenance)
    _run_index_pages(page, trials, runs, facts)
    facts_doc = collect_facts()
    page(
        "methodology.html",
        "methodology.html.j2",
        title="Methodology",
        section="methodology",
        facts=facts_doc,
        problems=[p.spec for p in problems.values()],
        code=False,
        plots=False,
    )
    written.update(write_downloads(out, runs, downloads, generated))
    sizes = {p.name: _size(p) for p in written if p.parent.name == "downloads"}
    page(
        "downloads.html",
        "downloads.html.j2",
        title="Downloads",
        section="downloads",
        code=False,
        plots=False,
        json_size=sizes.get("results.json", ""),
        csv_size=sizes.get("results.csv", ""),
        schema="ceiling.site-results/1",
    )
    written.add(write_manifest(out, manifest, written))
    prune(out, previous, written)
    seconds = time.perf_counter() - started
    return BuildReport(
        out, len(runs), len(written), rendered, len(runs) - rendered, tuple(issues), cpu_skipped, seconds, invalid
    )


def _strict_failure(invalid: int, problems: int) -> BuildError:
    return BuildError(
        f"{invalid} result file(s) invalid, {problems} problem(s) in all input files (strict=true); "
        "fix them (`python -m scoring.verify PATH` checks result files) or build with strict=false"
    )


def _invalid(outcomes: list[FileOutcome]) -> int:
    """Result files that failed their checks (a file can have several issues; a duplicate run id is not one)."""
    return sum(1 for o in outcomes if o.run is None and o.issues)


def _size(path: Path) -> str:
    size = path.stat().st_size
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} kB"


def _problem_pages(
    page, problems, runs, trials: pd.DataFrame, shapes: pd.DataFrame, boards, provenance, colours: dict[str, str]
) -> None:
    labels = dict(zip(trials["row_key"], trials["row_label"])) if not trials.empty else {}
    runs_by_problem = trials.groupby("problem")["run_id"].nunique().to_dict() if not trials.empty else {}
    peaks = {}
    for run in runs:
        peak = run.data["hardware"]["peak"]
        precision = run.data["problem"].get("precision") or problems[run.problem].spec.precision
        peaks.setdefault((run.problem, run.hardware), (peak["tflops"].get(precision), peak["bandwidth_gbps"]))
    # Split the tables by (problem, hardware) once, rather than masking all rows for every section. The figures
    # compare what the ranking counts only (ranking_rules.py): re-scored runs, known-wrong demonstrations and
    # harness tests have tables of their own, and runs of another scorer version or setting are "other runs".
    # A system is plotted from its passing runs only; one that did not pass is listed beneath the figures.
    if not shapes.empty:
        passing = trials[
            (trials["reason"] == "") & trials["row_kind"].isin(RANKED_KINDS) & (trials["status"] == "passed")
        ]
        keys = pd.MultiIndex.from_frame(passing[["run_id", "row_key"]])
        shapes = shapes[pd.MultiIndex.from_frame(shapes[["run_id", "row_key"]]).isin(keys)]
    shapes_of = dict(iter(shapes.groupby(["problem", "hw"], sort=False))) if not shapes.empty else {}
    trials_of = dict(iter(trials.groupby(["problem", "hw"], sort=False))) if not trials.empty else {}
    items = []
    for name, info in problems.items():
        sections = []
        for board in boards:
            if name not in board.problems:
                continue
            sub = shapes_of.get((name, board.hw), shapes.iloc[0:0])
            section_trials = trials_of[(name, board.hw)]
            peak_tflops, peak_gbps = peaks[(name, board.hw)]
            solutions = section_trials[
                section_trials["row_kind"].isin(["agent", "house"]) & (section_trials["reason"] == "")
            ]
            best = solutions.sort_values(["fraction", "created"], ascending=[False, True]).head(10)
            demos = section_trials[section_trials["row_kind"] == "solution"].sort_values(["row_label", "created"])
            sections.append(
                dict(
                    hw=board.hw,
                    hw_label=board.hw_label,
                    peak_tflops=peak_tflops,
                    peak_gbps=peak_gbps,
                    runs=int(section_trials["run_id"].nunique()),
                    roofline=_script_json(figures.roofline_figure(sub, labels, peak_tflops, peak_gbps, colours)),
                    shapes=_script_json(figures.shape_fraction_figure(sub, labels, colours)),
                    not_plotted=_not_plotted(section_trials, colours),
                    best=best.to_dict("records"),
                    demos=demos.to_dict("records"),
                    rescored=[r for r in board.rescored if r["problem"] == name],
                )
            )
        page(
            f"problem/{name}.html",
            "problem.html.j2",
            title=info.spec.title,
            section="problems",
            info=info,
            hardware=sections,
            prompt_html=markdown(info.prompt),
            provenance=provenance,
            code=True,
            plots=bool(sections),
        )
        items.append(
            dict(name=name, title=info.spec.title, precision=info.spec.precision, runs=runs_by_problem.get(name, 0))
        )
    page("problems.html", "lists.html.j2", title="Problems", section="problems", items=items, code=False, plots=False)


def _not_plotted(section: pd.DataFrame, colours: dict[str, str]) -> list[dict]:
    """The ranked systems of one problem and hardware with no passing counted run: what they got instead."""
    counted = section[
        (section["reason"] == "") & section["row_kind"].isin(RANKED_KINDS) & (section["category"] != "na")
    ]
    missing = []
    for key, frame in counted.groupby("row_key", sort=True):
        if (frame["status"] == "passed").any():
            continue
        statuses = ", ".join(f"{status} ×{count}" for status, count in frame["status"].value_counts().items())
        failures = sorted({f for f in frame["failure"] if isinstance(f, str) and f})
        missing.append(
            dict(
                label=frame["row_label"].iloc[0],
                slug=frame["slug"].iloc[0],
                colour=colours.get(key, "#444"),
                statuses=statuses,
                failures=", ".join(failures),
                run_id=frame["run_id"].iloc[0],
            )
        )
    return missing


def _script_json(text: str) -> str:
    """JSON safe inside <script type=application/json>: no '</' can close the element."""
    return text.replace("</", "<\\/")


def _agent_pages(page, trials: pd.DataFrame, boards, facts: dict, provenance: dict) -> None:
    items = []
    for key, frame in trials.groupby("row_key", sort=False):
        first = frame.iloc[0]
        entries = [dict(board=b, row=r) for b in boards for r in b.rows if r.key == key]
        runs, tokens, cost = [], None, None
        is_agent, is_reference = first["row_kind"] == "agent", first["row_kind"] == "reference"
        anchor = "sys-" + str(key).split(":", 1)[1] if is_reference else ""
        columns = ["run_id", "hw_label", "problem", "status", "fraction", "verdict", "failure"]
        for r in frame.sort_values("created", ascending=False)[columns].to_dict("records"):
            f = (facts.get(r["run_id"]) or {}) if is_agent else {}
            if f.get("tokens") is not None:
                tokens = (tokens or 0) + f["tokens"]
            if f.get("cost_usd") is not None:
                cost = (cost or 0.0) + f["cost_usd"]
            runs.append(dict(r, tokens=f.get("tokens"), cost=f.get("cost_usd"), wall_s=f.get("wall_s"), anchor=anchor))
        attempted = frame[frame["category"] != "na"]
        passed = int((attempted["category"] == "pass").sum())
        rescored_runs = []
        if first["row_kind"] == "rescored":
            rescored_runs = newest_per_published_file(frame).sort_values(["problem", "created"]).to_dict("records")
        page(
            f"agent/{first['slug']}.html",
            "agent.html.j2",
            title=first["row_label"],
            section="agents",
            label=first["row_label"],
            kind=first["row_kind"],
            rows=entries,
            runs=runs,
            passed=passed,
            attempted=len(attempted),
            tokens=tokens,
            cost=cost,
            rescored_runs=rescored_runs,
            provenance=provenance,
            code=False,
            plots=False,
        )
        items.append(
            dict(
                slug=first["slug"],
                label=first["row_label"],
                kind=first["row_kind"],
                runs=len(frame),
                passed=passed,
                order=(first["row_kind"] not in RANKED_KINDS, first["row_kind"] != "agent", first["row_label"]),
            )
        )
    items.sort(key=lambda item: item["order"])
    page(
        "agents.html",
        "lists.html.j2",
        title="Agents and reference systems",
        section="agents",
        items=items,
        code=False,
        plots=False,
    )


def _harness_test_page(page, trials: pd.DataFrame) -> None:
    """Runs of the harness's own tests (a fake or probe agent CLI): shown here and on their run pages only."""
    tests = trials[trials["row_kind"] == "test"].sort_values("created", ascending=False) if not trials.empty else trials
    page(
        "harness-tests.html",
        "harness_tests.html.j2",
        title="Harness tests",
        section="agents",
        runs=tests.to_dict("records") if not tests.empty else [],
        code=False,
        plots=False,
    )


def _run_index_pages(page, trials: pd.DataFrame, runs, facts: dict) -> None:
    """runs.html (every run, filtered in the browser), models.html with the score-against-effort figures, and
    one page per model (run_index.py)."""
    records = run_records(trials, runs, facts)
    page(
        "runs.html",
        "runs.html.j2",
        title="Runs",
        section="runs",
        data=index_json(records),
        options=filter_options(records),
        total=len(records),
        code=False,
        plots=False,
    )
    effort = effort_figures(records)
    entries = models(records)
    page(
        "models.html",
        "models.html.j2",
        title="Models",
        section="models",
        models=entries,
        effort=effort,
        code=False,
        plots=bool(effort),
    )
    for model in entries:
        page(
            f"model/{model.slug}.html",
            "model.html.j2",
            title=f"Model {model.name}",
            section="models",
            model=model,
            sources=SOURCES,
            code=False,
            plots=False,
        )
