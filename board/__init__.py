"""Ceiling's published face: a static leaderboard site generated from the result files in results/.

`python -m board [results=results] [out=site] [strict=false]` (`help` lists every option).
Torch-free. Layout: config.py (options), load.py + validate.py + annotations.py (reading and checking
inputs), frame.py + rank.py (pandas tables, the per-hardware boards), figures.py (Plotly), facts.py +
problem_info.py (methodology and problem data, read from the scorer's code), run_info.py (solution,
transcript, tokens), pages.py + templates/ + static/ (HTML), downloads.py, builder.py (the one pass),
cli.py, bench.py (the 10,000-result benchmark). docs/site.md is the guide.
Its own package (not `site`, which would shadow the standard library's module; `site/` is the output).
It uses the viewer for transcript pages; the viewer never imports it.
"""

from .config import BuildConfig


def build(config: BuildConfig | None = None, log=print):
    from .builder import build as _build

    return _build(config or BuildConfig(), log=log)


__all__ = ["BuildConfig", "build"]
