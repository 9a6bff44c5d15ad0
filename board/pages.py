"""The Jinja2 environment and page writing: templates in templates/, assets in static/.

Pages link relatively (`root` is "" or "../"), so the site works from file:// and from any static
host. plotly.js is copied once from the installed plotly package into assets/ (no CDN).
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import jinja2
import plotly

from .code import highlight_cached, pygments_css
from .output import FILE_MODE, write_text
from .provenance import origins
from .rescored_judgement import legend as kernelbench_legend, verdict_counts
from .run_tables import audit_table, badge, other_run_rows, run_list_rows, shape_errors, shape_table

PACKAGE = Path(__file__).resolve().parent
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"


def fmt(value, spec: str = "%.4g") -> str:
    if value is None or isinstance(value, jinja2.Undefined) or isinstance(value, bool):
        return "—"
    if isinstance(value, float) and not math.isfinite(value):
        return "—"
    try:
        return spec % value
    except (TypeError, ValueError):
        return str(value)


def frac(value) -> str:
    """A fraction of peak, as every page shows it."""
    return fmt(value, "%.3f")


def num(value, spec: str = "%.4g") -> str:
    return fmt(value, spec)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PACKAGE / "templates"),
        autoescape=jinja2.select_autoescape(["j2", "html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.Undefined,
    )
    env.globals.update(
        fmt=fmt,
        frac=frac,
        num=num,
        badge=badge,
        highlight=highlight_cached,
        shape_table=shape_table,
        audit_table=audit_table,
        run_list_rows=run_list_rows,
        other_run_rows=other_run_rows,
        shape_errors=shape_errors,
        origins=origins,
        verdict_counts=verdict_counts,
        kernelbench_legend=kernelbench_legend,
    )
    return env


def copy_assets(out: Path) -> list[Path]:
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    written = []
    for source in [*(PACKAGE / "static").iterdir(), PLOTLY_JS]:
        target = assets / source.name
        unchanged = target.exists() and target.stat().st_size == source.stat().st_size
        if source != PLOTLY_JS or not unchanged:  # the 4.8 MB plotly.js is copied once
            shutil.copyfile(source, target)
            os.chmod(target, FILE_MODE)  # copyfile keeps the mode of a file it overwrites
        written.append(target)
    css = assets / "pygments.css"
    write_text(css, pygments_css())
    written.append(css)
    return written
