"""Human-readable output of a scoring run: progress lines and the closing summary table. Torch-free."""

from __future__ import annotations

import math
import sys


def _fmt(value, spec: str, missing: str = "-") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    return format(value, spec)


def first_line(text, limit: int) -> str:
    """The first line of a detail, printable only: a detail can carry the solution's own words (an exception's
    message), and terminal escapes in them would rewrite the printed report (red team round 5)."""
    line = str(text).splitlines()[0] if text else ""
    return "".join(ch if ch.isprintable() else "?" for ch in line)[:limit]


def progress_line(system: str, index: int, total: int, shape: dict) -> str:
    status = shape["status"]
    if status == "passed" and "fraction" in shape:
        what = (
            f"{shape['timing']['median_ms']:.4g} ms, {shape['achieved_tflops']:.4g} TFLOPS, "
            f"{shape['achieved_gbps']:.4g} GB/s, {shape['fraction']:.3g} of roofline"
        )
    elif status == "passed":
        what = "correct (not timed)"
    else:
        what = first_line(shape.get("detail"), 140)
    return f"[{system}] {index + 1}/{total} {shape['name']:<18} {status:<13} {what}"


def print_progress(system: str, index: int, total: int, shape: dict) -> None:
    print(progress_line(system, index, total, shape), file=sys.stderr, flush=True)


def summary_table(result: dict) -> str:
    hw = result["hardware"]
    peak = hw["peak"]
    precision = result["problem"]["precision"]
    systems = result["systems"]
    solution, lines = systems[0], systems[1:]
    out = [
        f"{result['problem']['name']} on {hw['name']} [{hw['profile']} profile] -- peak {precision} "
        f"{peak['tflops'][precision]:.1f} TFLOPS, {peak['bandwidth_gbps']:.0f} GB/s ({peak['source']})"
    ]
    cpu = hw["profile"] == "cpu"
    if cpu:
        out.append(
            "CPU PROFILE: host timings against this machine's measured ceilings; the fractions are host "
            "fractions, not scores. Triton kernels run in Triton's interpreter (TRITON_INTERPRET=1), so a "
            "Triton house kernel is far slower than eager PyTorch here: that says nothing of its GPU speed."
        )
    header = (
        f"{'shape':<18} {'set':<9} {'status':<13} {'median_ms':>10} {'±rse%':>6} {'TFLOPS':>9} "
        f"{'GB/s':>8} {'bound':>7} {'frac':>8}"
    )
    header += "".join(f" {line['name'][:9]:>9}" for line in lines)
    out += [f"solution: {solution['name']} ({solution['path']})", header, "-" * len(header)]
    for shape in solution["shapes"]:
        timing = shape.get("timing") or {}
        row = (
            f"{shape['name']:<18} {shape['shape_set']:<9} {shape['status']:<13} "
            f"{_fmt(timing.get('median_ms'), '10.4f'):>10} {_fmt(timing.get('rse', None) and timing['rse'] * 100, '6.2f'):>6} "
            f"{_fmt(shape.get('achieved_tflops'), '9.4g'):>9} {_fmt(shape.get('achieved_gbps'), '8.4g'):>8} "
            f"{shape.get('bound', '-'):>7} {_fmt(shape.get('fraction'), '.3g'):>8}"
        )
        for line in lines:  # lines are measured on the fixed shapes only (scoring/line_cache.py)
            other = next((s for s in line["shapes"] if s["name"] == shape["name"]), {})
            cell = _fmt(other.get("fraction"), "9.3g") if other.get("status") == "passed" else other.get("status", "-")
            row += f" {cell[:9]:>9}"
        out.append(row)
    out.append("-" * len(header))
    for system in systems:
        s = system["score"]
        library = f" [{system['library_version']}]" if system.get("library_version") else ""
        what = "host fraction (not a score)" if cpu else "score"
        out.append(
            f"{system['role']:<9} {system['name']:<10} {system['status']:<13} {what} {_fmt(s['fraction'], '.3g')}"
            f"  (visible {_fmt(s['visible_fraction'], '.3g')}, held-out {_fmt(s['held_out_fraction'], '.3g')},"
            f" {s['shapes_passed']}/{s['shapes_total']} shapes passed)  {system.get('label', '')}{library}"
            + (f"  [cached: {system['cached_from']}]" if system.get("cached_from") else "")
        )
    for system in systems:
        for audit in system.get("audits", []):
            out.append(f"audit {audit['id']} [{system['name']}]: {audit['outcome']}")
    failure = solution.get("failure")
    if failure:
        unseen = " (only on unseen shapes: held-out or property)" if failure.get("unseen_only") else ""
        out.append(f"failure: {failure['label']}{unseen} on {', '.join(failure['shapes']) or 'an audit'}")
    failures = [(sh["name"], sh.get("detail", "")) for sh in solution["shapes"] if sh["status"] != "passed"]
    for name, detail in failures[:6]:
        out.append(f"  {name}: {first_line(detail, 200)}")
    return "\n".join(out)
