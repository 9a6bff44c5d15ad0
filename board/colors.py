"""One colour and one marker per system across the whole site.

Reference lines and the house kernel have fixed colours (a reader learns them once); agents get the
remaining colours of a qualitative palette in the order of their row keys over the whole build, so an
agent has the same colour on every problem page and plot. Past the palette, colours continue around the
hue circle by the golden angle, so no two systems share one.
"""

from __future__ import annotations

import colorsys

FIXED = {"house": "#e6550d", "ref:library": "#6a3d9a", "ref:compiled": "#1f78b4", "ref:eager": "#7f7f7f"}
AGENT_PALETTE = (
    "#2ca02c",
    "#d62728",
    "#17becf",
    "#bcbd22",
    "#e377c2",
    "#8c564b",
    "#393b79",
    "#637939",
    "#ad494a",
    "#3182bd",
    "#31a354",
    "#756bb1",
)
# Marker symbols, one per system on a figure, so a point hidden under another's colour is still told apart.
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "triangle-down", "cross", "star", "hexagon", "pentagon")


def palette(row_keys) -> dict[str, str]:
    """{row_key: colour} for every key: fixed ones for house and reference lines, the rest in sorted order."""
    colours = {key: FIXED[key] for key in row_keys if key in FIXED}
    others = sorted(key for key in set(row_keys) if key not in FIXED)
    for i, key in enumerate(others):
        colours[key] = AGENT_PALETTE[i] if i < len(AGENT_PALETTE) else _golden(i - len(AGENT_PALETTE))
    return colours


def _golden(i: int) -> str:
    red, green, blue = colorsys.hls_to_rgb((0.11 + i * 0.381966) % 1.0, 0.42, 0.65)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"
