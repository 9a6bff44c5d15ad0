"""Plotly figures of a problem on one hardware, as JSON the page hands to the local plotly.js.

Roofline: arithmetic intensity (FLOP per byte moved) against achieved TFLOP/s, both on log axes, under
the hardware's compute roof (peak TFLOP/s of the problem's precision) and memory roof (intensity x
peak bandwidth); one point per shape per system, the median over that system's passing, ranked runs.
Per shape: the median fraction of the roofline of each system on each scored shape, over its passing runs.
The caller passes only passing runs of systems the ranking counts; a system that did not pass is listed
beneath the figures instead. Each system keeps its site-wide colour (colors.py); markers differ in
symbol and size (the first drawn largest) so that no series hides another.

The figures are written as plain Plotly JSON ({"data": [...], "layout": {...}}) rather than through
plotly.graph_objects, whose per-trace validation cost ~0.75 s a figure with 50 systems (measured with
cProfile on the 10,000-result benchmark); plotly.js reads the same JSON.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from .colors import SYMBOLS

_FONT = dict(family="system-ui, sans-serif", size=12)


def _marker(index: int, colour: str) -> dict:
    return dict(
        color=colour,
        symbol=SYMBOLS[index % len(SYMBOLS)],
        size=max(8, 16 - 2 * index),
        opacity=0.85,
        line=dict(color="#ffffff", width=1),
    )


def roofline_figure(
    shapes: pd.DataFrame,
    labels: dict[str, str],
    peak_tflops: float,
    peak_gbps: float,
    colours: dict[str, str] | None = None,
) -> str:
    passed = shapes[
        (shapes["status"] == "passed")
        & ~shapes["flagged"]
        & shapes["achieved_tflops"].notna()
        & (shapes["bytes_moved"] > 0)
    ]
    traces = []
    if not passed.empty:
        points = (
            passed.groupby(["row_key", "shape"], sort=False)
            .agg(
                tflops=("achieved_tflops", "median"),
                flops=("flops", "first"),
                bytes_moved=("bytes_moved", "first"),
                fraction=("fraction", "median"),
            )
            .reset_index()
        )
        points["intensity"] = points["flops"] / points["bytes_moved"]
        low, high = points["intensity"].min() / 2, points["intensity"].max() * 2
    else:
        points, low, high = None, 1.0, 1e4
    ridge = peak_tflops * 1e3 / peak_gbps  # FLOP/byte where the roofs meet
    low, high = min(low, ridge / 4), max(high, ridge * 4)
    xs = [math.exp(math.log(low) + (math.log(high) - math.log(low)) * i / 63) for i in range(64)]
    traces.append(
        dict(
            type="scatter",
            x=xs,
            y=[min(peak_tflops, x * peak_gbps / 1e3) for x in xs],
            mode="lines",
            name="roofline",
            line=dict(color="#333", width=2),
            hovertemplate="intensity %{x:.3g} FLOP/B<br>roof %{y:.4g} TFLOPS<extra></extra>",
        )
    )
    if points is not None:
        for index, (key, group) in enumerate(points.groupby("row_key", sort=False)):
            traces.append(
                dict(
                    type="scatter",
                    x=group["intensity"].tolist(),
                    y=group["tflops"].tolist(),
                    mode="markers",
                    name=labels.get(key, key),
                    marker=_marker(index, (colours or {}).get(key, "#444")),
                    text=group["shape"].tolist(),
                    customdata=group["fraction"].tolist(),
                    hovertemplate="%{text}<br>%{x:.3g} FLOP/B, %{y:.4g} TFLOPS<br>fraction %{customdata:.3f}<extra></extra>",
                )
            )
    layout = dict(
        xaxis=dict(type="log", title=dict(text="arithmetic intensity (FLOP per byte moved)")),
        yaxis=dict(type="log", title=dict(text="achieved throughput (TFLOP/s)")),
        margin=dict(l=60, r=20, t=30, b=50),
        height=460,
        font=_FONT,
        legend=dict(orientation="h", y=-0.25),
        annotations=[
            dict(
                x=math.log10(high),
                y=math.log10(peak_tflops),
                xanchor="right",
                yanchor="bottom",
                text=f"compute roof {peak_tflops:g} TFLOP/s",
                showarrow=False,
            ),
            dict(
                x=math.log10(low),
                y=math.log10(low * peak_gbps / 1e3),
                xanchor="left",
                yanchor="bottom",
                text=f"memory roof {peak_gbps:g} GB/s",
                showarrow=False,
                textangle=0,
            ),
        ],
    )
    return json.dumps({"data": traces, "layout": layout})


def shape_fraction_figure(shapes: pd.DataFrame, labels: dict[str, str], colours: dict[str, str] | None = None) -> str:
    scored = shapes[shapes["shape_set"].isin(["visible", "held_out"]) & (shapes["status"] == "passed")]
    traces = []
    shape_order = list(dict.fromkeys(scored["shape"]))
    row_order = list(dict.fromkeys(scored["row_key"]))
    if row_order:  # one groupby for every system (a groupby per system cost ~1.5 s at 10,000 runs)
        medians = scored.groupby(["row_key", "shape"], sort=False)["fraction"].median().unstack("shape")
        medians = medians.reindex(index=row_order, columns=shape_order)
        for key, values in zip(row_order, medians.to_numpy().tolist()):
            traces.append(
                dict(
                    type="bar",
                    x=shape_order,
                    y=[None if pd.isna(v) else v for v in values],
                    name=labels.get(key, key),
                    marker=dict(color=(colours or {}).get(key, "#444")),
                    hovertemplate="%{x}: %{y:.3f}<extra>" + labels.get(key, key) + "</extra>",
                )
            )
    layout = dict(
        barmode="group",
        font=_FONT,
        margin=dict(l=60, r=20, t=30, b=110),
        height=440,
        xaxis=dict(title=dict(text="shape (visible and held-out)"), automargin=True),
        yaxis=dict(title=dict(text="fraction of the roofline (0-1)"), range=[0, 1]),
        legend=dict(orientation="h", y=-0.45),
    )
    return json.dumps({"data": traces, "layout": layout})
